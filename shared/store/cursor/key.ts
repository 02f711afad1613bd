/**
 * Where the HMAC key of cursors comes from, asked only when a cursor is signed or checked, so a
 * request that needs none reads no secret. Undefined: no key of the caller's (cursor.ts then
 * signs with a key of this process only).
 */
export type CursorKey = () => Promise<string | undefined>;

/** No key of the caller's: cursors this process signs, and only it accepts. */
export const PROCESS_CURSOR_KEY: CursorKey = async () => undefined;

let configured: CursorKey = PROCESS_CURSOR_KEY;

/**
 * Sets, once for the process, the key every action signs and checks its cursors with: the API
 * gives CURSOR_SECRET (shared/api/cursor-key.ts). The store knows nothing of secrets; until this
 * is called (the service's own callers, scripts, tests), cursors carry a key of this process.
 */
export function configureCursorKey(key: CursorKey): void {
  configured = key;
}

/** The configured key, read at each use: what list, update and delete sign and check their cursors with. */
export const cursorKey: CursorKey = () => configured();
