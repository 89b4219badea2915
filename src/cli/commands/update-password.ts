import { verify } from '@node-rs/argon2';
import { systemContextIn } from '../../api/context.ts';
import { parseBody, updateObject } from '../../api/crud.ts';
import type { TableRow } from '../../db/database.ts';
import { CommandError, parseOptions, requireOption, withServices, type Command } from '../command.ts';

export const updatePassword: Command = {
  name: 'update_password',
  summary: "Set a user's password",
  usage: '--username USERNAME --password PASSWORD',
  async run({ env, args, io, resources }) {
    const { values: options } = parseOptions(args, {
      username: { type: 'string' },
      password: { type: 'string' },
    });
    const username = requireOption(options.username, 'username');
    if (options.password === undefined) requireOption(undefined, 'password');
    const users = resources.get('user');
    const changed = await withServices(env, (services) =>
      services.db.transaction(async (tx) => {
        const [existing] = await tx.query<TableRow<'users'>>('SELECT * FROM users WHERE username = $1 FOR UPDATE', [username]);
        if (!existing) throw new CommandError(`user "${username}" does not exist`);
        const values = parseBody(users, { password: options.password }, 'update', existing);
        if (existing.password && (await verify(existing.password, options.password!).catch(() => false))) return false;
        await updateObject(tx, systemContextIn(services), users, existing, values);
        return true;
      }),
    );
    io.out(changed ? 'Password updated' : 'Password not updated');
    return 0;
  },
};
