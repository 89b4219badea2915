import type { RunKind } from '../../runs/run-kind.ts';
import { adHocCommands, adHocLauncher } from './ad-hoc-command.resource.ts';
import { adHocRoutes } from './ad-hoc-routes.ts';
import { runAdHocCommand } from './run-ad-hoc.ts';

/** Ad hoc commands: one module run on an inventory's hosts, started by POST on their list (or a host's, group's, inventory's). */
export const adHocCommandKind: RunKind = {
  name: 'ad_hoc_command',
  resource: adHocCommands,
  unifiedJobsPosition: 4,
  run: runAdHocCommand,
  routes: [adHocCommands.runRoutes, adHocRoutes],
  messages: { friendly: 'AdHoc Command', ui: 'command' },
  cleanup: { option: 'ad-hoc-commands', label: 'ad hoc commands' },
  // A module's events on each host, each on its own at /ad_hoc_command_events/{id}/ (AWX's AdHocCommandEventSerializer).
  events: {
    detailPath: '/api/v2/ad_hoc_command_events/',
    fields: ['ad_hoc_command', 'event', 'counter', 'event_display', 'event_data', 'failed', 'changed', 'uuid', 'host', 'host_name',
      'stdout', 'start_line', 'end_line', 'verbosity'],
    playbook: false,
    host: true,
    children: false,
  },
  onExecutionNodes: true,
  // Its inventory's updates finish first; it launches none of its own.
  waitsFor: { updates: ['inventory_update'] },
  policy: { resourceTypes: ['ad_hoc_command'], resourceIsRun: true },
  // Relaunches too: a relaunch is a new command with the same values (launch_type relaunch).
  launchers: { manual: adHocLauncher },
};
