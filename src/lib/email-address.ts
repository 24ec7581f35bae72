// The one test of an e-mail address, for every address the service stores or mails: inquiry and
// customer addresses (the JSON Schema format "email", src/http/validation.ts), member and owner
// addresses (sign-up, invitations, the CLI), a shop's contact address. It is ajv-formats' "full"
// e-mail grammar: a plain addr-spec (RFC 5321 dot-atom local part and a dotted host name), so a
// display name, angle brackets, quotes, spaces or `;`/`:` never pass (a member invited as
// `x<attacker@evil.example>` was mailed at the attacker's address), and nothing that reaches a
// mail header or a calendar file can carry another address or parameter.
const ADDRESS =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** The longest address SMTP carries (RFC 5321 4.5.3.1.3, a path of 256 with its brackets). */
export const EMAIL_MAX_LENGTH = 254;

export function isEmailAddress(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && ADDRESS.test(value);
}
