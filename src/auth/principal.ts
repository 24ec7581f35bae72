import type { Scope } from "./scopes.ts";

/**
 * Who is calling, whatever the credential: API keys and OAuth access tokens both become this,
 * so routes check scopes one way and never know which mechanism authenticated the request.
 */
export interface Principal {
  vendorId: string;
  scopes: ReadonlySet<Scope>;
  credential:
    | { kind: "api_key"; id: string }
    | {
        kind: "oauth";
        grantId: string;
        clientId: string;
        /** The access token's own id and end: an open event stream ends with it (CONTRACT 12). */
        tokenId: string;
        expiresAt: Date;
      };
  /** False for a test key (`vk_test_…`): `vendorId` is then the shop's sandbox (CONTRACT 11). */
  livemode: boolean;
}
