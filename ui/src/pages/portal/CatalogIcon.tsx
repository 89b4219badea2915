import type { ComponentType } from 'react';
import {
  AutomationIcon,
  BoltIcon,
  BoxIcon,
  BugIcon,
  CatalogIcon as DefaultIcon,
  CloudIcon,
  CodeIcon,
  CogIcon,
  ContainerNodeIcon,
  CubeIcon,
  CubesIcon,
  DatabaseIcon,
  DesktopIcon,
  EnvelopeIcon,
  GlobeIcon,
  HddIcon,
  KeyIcon,
  LaptopIcon,
  LinuxIcon,
  LockIcon,
  NetworkIcon,
  RocketIcon,
  ServerIcon,
  SitemapIcon,
  StorageDomainIcon,
  SyncIcon,
  TerminalIcon,
  TrashIcon,
  UserIcon,
  UsersIcon,
  VirtualMachineIcon,
  WindowsIcon,
  WrenchIcon,
} from '@patternfly/react-icons';

/** The icon names an item may give, as PatternFly and Font Awesome name them (without their prefix). */
export const ICONS: Record<string, ComponentType<{ title?: string }>> = {
  automation: AutomationIcon,
  bolt: BoltIcon,
  box: BoxIcon,
  bug: BugIcon,
  catalog: DefaultIcon,
  cloud: CloudIcon,
  code: CodeIcon,
  cog: CogIcon,
  container: ContainerNodeIcon,
  cube: CubeIcon,
  cubes: CubesIcon,
  database: DatabaseIcon,
  desktop: DesktopIcon,
  envelope: EnvelopeIcon,
  globe: GlobeIcon,
  hdd: HddIcon,
  disk: HddIcon,
  key: KeyIcon,
  laptop: LaptopIcon,
  linux: LinuxIcon,
  lock: LockIcon,
  network: NetworkIcon,
  rocket: RocketIcon,
  server: ServerIcon,
  sitemap: SitemapIcon,
  storage: StorageDomainIcon,
  sync: SyncIcon,
  terminal: TerminalIcon,
  trash: TrashIcon,
  user: UserIcon,
  users: UsersIcon,
  vm: VirtualMachineIcon,
  'virtual-machine': VirtualMachineIcon,
  windows: WindowsIcon,
  wrench: WrenchIcon,
};

/** `pf:server`, `fa-server`, `pficon-server`, `Server` all name the server icon. */
const iconKey = (name: string) => name.toLowerCase().replace(/^[a-z0-9]+:/, '').replace(/^(fa|fas|pf|pficon)-/, '').replace(/-icon$/, '');

/**
 * An image URL the page may load: the console's Content-Security-Policy allows images of its own
 * origin only (docs/console.md), so another site's image would be refused.
 */
function sameOriginImage(icon: string): string | undefined {
  if (!/^https?:\/\//.test(icon)) return undefined;
  try {
    const url = new URL(icon);
    return url.origin === window.location.origin ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A catalog item's icon: a known icon name, an image of the console's own site, else the catalog icon. */
export function CatalogIcon({ icon, size = 32 }: { icon: string | null | undefined; size?: number }) {
  const text = String(icon ?? '');
  const image = sameOriginImage(text);
  if (image) return <img src={image} alt="" width={size} height={size} className="drover-catalog-icon" />;
  const Icon = ICONS[iconKey(text)] ?? DefaultIcon;
  return (
    <span className="drover-catalog-icon" aria-hidden="true" style={{ fontSize: `${size}px` }}>
      <Icon />
    </span>
  );
}
