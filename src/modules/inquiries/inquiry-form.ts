// The inquiry form a shop puts on its own website (or uses on its hosted page): the same form for
// both, posted as plain application/x-www-form-urlencoded to the public endpoint. Besides the
// inquiry's fields it carries two of our own: `_return`, where to send the visitor afterwards (only
// an address on the shop's registered website is followed), and `url`, a honeypot: hidden from
// people, filled in by form-filling bots, whose posts are then answered as usual and dropped.
export const RETURN_FIELD = "_return";
export const HONEYPOT_FIELD = "url";

/** The form's own fields (never part of the inquiry). */
export interface InquiryFormMeta {
  returnTo: string | undefined;
  /** The honeypot was filled in: a bot. */
  trapped: boolean;
}

/**
 * The inquiry fields of a posted form as the JSON body would carry them (an empty optional field is
 * absent), and the form's own fields apart. Repeated fields keep their first value.
 */
export function splitInquiryForm(form: URLSearchParams): {
  body: Record<string, string>;
  meta: InquiryFormMeta;
} {
  const body: Record<string, string> = {};
  const meta: InquiryFormMeta = { returnTo: undefined, trapped: false };
  for (const [key, value] of form) {
    if (key === RETURN_FIELD) meta.returnTo ??= value;
    else if (key === HONEYPOT_FIELD) meta.trapped ||= value.trim() !== "";
    else if (!(key in body) && !(value === "" && (key === "phone" || key === "weddingDate")))
      body[key] = value;
  }
  return { body, meta };
}
