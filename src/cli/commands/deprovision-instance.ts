import { systemContextIn } from '../../api/context.ts';
import { deprovisionInstance as deprovision } from '../../task-manager/deprovision.ts';
import { CommandError, parseOptions, requireOption, withServices, type Command } from '../command.ts';

export const deprovisionInstance: Command = {
  name: 'deprovision_instance',
  summary: 'Remove a cluster node and its instance group memberships, once the runs on it have ended',
  usage: '--hostname HOSTNAME',
  async run({ env, args, io }) {
    const { values } = parseOptions(args, { hostname: { type: 'string' } });
    const hostname = requireOption(values.hostname, 'hostname');
    const outcome = await withServices(env, (services) => services.db.transaction((tx) => deprovision(tx, systemContextIn(services), hostname)));
    if (!outcome) throw new CommandError(`Instance ${hostname} is not registered (drover manage list_instances lists them)`);
    if (outcome.removed) io.out(`Successfully deprovisioned ${hostname}`);
    else io.out(`Instance ${hostname} is deprovisioning: it takes no new work and is removed once its ${outcome.activeRuns} active run(s) end`);
    return 0;
  },
};
