import { systemContextIn } from '../../api/context.ts';
import { createObject, parseBody } from '../../api/crud.ts';
import { parseOptions, requireOption, UsageError, withServices, type Command } from '../command.ts';

export const createsuperuser: Command = {
  name: 'createsuperuser',
  summary: 'Create a superuser (system administrator)',
  usage: '--username USERNAME [--email EMAIL] (--password PASSWORD | --noinput)',
  async run({ env, args, io, resources }) {
    const { values: options } = parseOptions(args, {
      username: { type: 'string' },
      email: { type: 'string', default: '' },
      password: { type: 'string' },
      noinput: { type: 'boolean', default: false },
      'no-input': { type: 'boolean', default: false },
    });
    const username = requireOption(options.username, 'username');
    const noInput = options.noinput || options['no-input'];
    if (options.password === undefined && !noInput) {
      throw new UsageError('give --password, or --noinput to create the user without a usable password');
    }
    const users = resources.get('user');
    const body: Record<string, unknown> = { username, email: options.email, is_superuser: true };
    if (options.password !== undefined) body.password = options.password;
    // Checked field by field like a PATCH, so that a missing password is allowed: the user then
    // has no usable password (as Django's createsuperuser --noinput) until update_password sets one.
    const values = parseBody(users, body, 'update', null);
    await withServices(env, (services) => services.db.transaction((tx) => createObject(tx, systemContextIn(services), users, values)));
    io.out('Superuser created successfully.');
    if (options.password === undefined) {
      io.out(`The user has no usable password; set one with: drover manage update_password --username ${username} --password <password>`);
    }
    return 0;
  },
};
