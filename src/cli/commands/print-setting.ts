import { parseOptions, UsageError, withServices, type Command } from '../command.ts';

export const printSetting: Command = {
  name: 'print_setting',
  summary: 'Print the effective value of settings as JSON (secrets as $encrypted$)',
  usage: 'NAME [NAME ...]',
  async run({ env, args, io }) {
    const { positionals: names } = parseOptions(args, {}, true);
    if (!names.length) throw new UsageError('name at least one setting');
    return withServices(env, async ({ settings }) => {
      const known = names.map((name) => settings.registry.find(name));
      let status = 0;
      names.forEach((name, i) => {
        const definition = known[i];
        if (!definition) {
          io.err(`Error: unknown setting "${name}"`);
          status = 1;
          return;
        }
        io.out(`${name} = ${JSON.stringify(settings.display([definition])[name])}`);
      });
      return status;
    });
  },
};
