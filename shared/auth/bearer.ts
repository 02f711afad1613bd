/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750; the scheme is
 * case-insensitive), or undefined when the header is absent or uses another scheme.
 */
export function bearerToken(headers: Record<string, string | undefined> | undefined): string | undefined {
  const value = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(value ?? '');
  return match?.[1];
}
