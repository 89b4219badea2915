import type { Command } from '../command.ts';

export const help: Command = {
  name: 'help',
  summary: 'List the commands, or show how to use one',
  usage: '[COMMAND]',
  async run({ args, io, commands }) {
    const [name] = args;
    if (name) {
      const command = commands.find((c) => c.name === name);
      if (!command) {
        io.err(`drover manage: unknown command "${name}"`);
        return 2;
      }
      io.out(`usage: drover manage ${command.name} ${command.usage}`.trimEnd());
      io.out('');
      io.out(command.summary);
      return 0;
    }
    io.out('usage: drover manage <command> [options]');
    io.out('');
    io.out('Commands:');
    const width = Math.max(...commands.map((c) => c.name.length));
    for (const command of commands) io.out(`  ${command.name.padEnd(width)}  ${command.summary}`);
    io.out('');
    io.out('drover manage help <command> shows the options of one command.');
    return 0;
  },
};
