// Declarations of forwarding.js (see there).
export declare class ListenError extends Error {}
export declare const FORWARD_TIMEOUT_MS: number;
export declare function generateSecret(): string;
export declare function newDeliveryId(): string;
export declare function signingKey(secret: string): Buffer;

export interface DeliveryToBuild {
  deliveryId: string;
  eventId: string;
  eventType: string;
  data: unknown;
  secret: string;
  sentAt: Date;
}
export interface BuiltDelivery {
  body: string;
  headers: Record<string, string>;
}
export declare function buildDelivery(delivery: DeliveryToBuild): BuiltDelivery;

export interface PostResult {
  statusCode?: number;
  error?: string;
  durationMs: number;
}
export declare function postDelivery(
  url: string,
  request: BuiltDelivery,
  options: { userAgent: string; timeoutMs?: number },
): Promise<PostResult>;

export interface SseMessage {
  id: string;
  event: string;
  data: string;
}
export declare function sseParser(onEvent: (message: SseMessage) => void): (chunk: string) => void;
export declare function isLoopbackHost(hostname: string): boolean;
export declare function apiUrlProblem(apiUrl: string): string | undefined;
export declare function accountOf(apiUrl: string, apiKey: string, signal?: AbortSignal): Promise<string>;
export declare function configDir(env?: Record<string, string | undefined>): string;
export declare function accountSecret(
  apiUrl: string,
  account: string,
  env?: Record<string, string | undefined>,
): string;

export interface ListenArgs {
  apiUrl: string;
  apiKey: string;
  forwardTo: string;
  /** Event names to forward (the stream's `types`); all the key may read when absent. */
  events?: string[] | undefined;
  /** The signing secret of every forwarded delivery. */
  secret: string;
  /** Named in the User-Agent. */
  tool?: string;
}
export interface ListenIo {
  out: (line: string) => void;
  err: (line: string) => void;
  signal: AbortSignal;
  now?: () => Date;
}
export declare function listen(args: ListenArgs, io: ListenIo): Promise<void>;
