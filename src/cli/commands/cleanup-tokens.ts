import { deleteExpiredTokens } from '../../auth/oauth2.ts';
import { parseOptions, withServices, type Command } from '../command.ts';

export const cleanupTokens: Command = {
  name: 'cleanup_tokens',
  summary: 'Delete expired OAuth2 tokens (kept while their refresh token may still be used)',
  usage: '',
  async run({ env, args, io }) {
    parseOptions(args, {});
    const deleted = await withServices(env, ({ db, settings }) => deleteExpiredTokens(db, settings));
    io.out(`Deleted ${deleted} expired token${deleted === 1 ? '' : 's'}.`);
    return 0;
  },
};
