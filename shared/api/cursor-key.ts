import { secretSetting } from '../secrets';
import { configureCursorKey } from '../store/cursor/key';

/**
 * The key the API signs and checks cursors with: CURSOR_SECRET (a Secrets Manager secret in
 * AWS, shared/secrets.ts), read only when a cursor is signed or checked. The store takes it as
 * given and knows nothing of secrets; a secret that cannot be read is the API's 503.
 */
configureCursorKey(() => secretSetting('CURSOR_SECRET'));
