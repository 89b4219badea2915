import { systemContextIn } from '../../api/context.ts';
import { createObject, parseBody } from '../../api/crud.ts';
import { revealedSecrets } from '../../api/fields.ts';
import { CommandError, parseOptions, requireOption, withServices, type Command } from '../command.ts';

export const createOAuth2Token: Command = {
  name: 'create_oauth2_token',
  summary: 'Create a write-scoped personal access token for a user and print it',
  usage: '--user USERNAME',
  async run({ env, args, io, resources }) {
    const { values: options } = parseOptions(args, { user: { type: 'string' } });
    const username = requireOption(options.user, 'user');
    const tokens = resources.get('o_auth2_access_token');
    const token = await withServices(env, async (services) => {
      return services.db.transaction(async (tx) => {
        const [user] = await tx.query('SELECT id FROM users WHERE username = $1', [username]);
        if (!user) throw new CommandError(`user "${username}" does not exist`);
        const values = parseBody(tokens, { description: 'Created with create_oauth2_token', scope: 'write' }, 'create', null);
        // The system acts here, so the token may belong to someone else than the actor.
        Object.assign(values, { user: user.id, application: null });
        const row = await createObject(tx, systemContextIn(services), tokens, values);
        return revealedSecrets(row)!.token;
      });
    });
    io.out(token);
    return 0;
  },
};
