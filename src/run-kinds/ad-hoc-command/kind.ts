import type { RunKind } from '../../runs/run-kind.ts';
import { adHocCommands, adHocLauncher } from './ad-hoc-command.resource.ts';
import { adHocRoutes } from './ad-hoc-routes.ts';
import { runAdHocCommand } from './run-ad-hoc.ts';

/** Ad hoc commands: one module run on an inventory's hosts, started by POST on their list (or a host's, group's, inventory's). */
export const adHocCommandKind: RunKind = {
  name: 'ad_hoc_command',
  resource: adHocCommands,
  run: runAdHocCommand,
  routes: [adHocCommands.runRoutes, adHocRoutes],
  // Relaunches too: a relaunch is a new command with the same values (launch_type relaunch).
  launchers: { manual: adHocLauncher },
};
