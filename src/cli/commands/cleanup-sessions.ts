import { deleteExpiredSessions } from '../../auth/sessions.ts';
import { parseOptions, withServices, type Command } from '../command.ts';

export const cleanupSessions: Command = {
  name: 'cleanup_sessions',
  summary: 'Delete expired browser sessions (and login failures too old to count)',
  usage: '',
  async run({ env, args, io }) {
    parseOptions(args, {});
    const deleted = await withServices(env, ({ db, settings }) => deleteExpiredSessions(db, settings));
    io.out(`Deleted ${deleted} expired session${deleted === 1 ? '' : 's'}.`);
    return 0;
  },
};
