// The document is assembled as plain JSON; these name its parts by reference.
// biome-ignore lint/suspicious/noExplicitAny: OpenAPI objects, walked and rebuilt as JSON
export type Json = Record<string, any>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
