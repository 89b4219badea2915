/**
 * Facts shaped as `setup` gathers them on a Debian host, for benchmarks: the usual top-level facts
 * (distribution, kernel, addresses, interfaces, mounts, processors, environment, packages) filled up
 * to `keys` top-level keys with custom facts of mixed shapes (strings, numbers, small lists, nested
 * objects, and on every third host a pip package list like ansible_packages): 16 to 21 KB of JSON at
 * 300 keys. The same host index always gives the same facts.
 */

const PACKAGES = 50;

/** A small seeded generator (mulberry32), so that runs compare. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (next: () => number, length: number) => Array.from({ length }, () => Math.floor(next() * 16).toString(16)).join('');
const mac = (next: () => number) => Array.from({ length: 6 }, () => hex(next, 2)).join(':');

/** The IPv4 address of host `index` on the bench network. */
export const hostAddress = (index: number) => `10.${20 + Math.floor(index / 65_536)}.${Math.floor(index / 256) % 256}.${index % 256}`;

/** A package list keyed by name, as package_facts writes it. */
function packages(next: () => number, prefix: string, source: string): Record<string, unknown> {
  const list: Record<string, unknown> = {};
  for (let p = 0; p < PACKAGES; p++) {
    const name = `${prefix}${p.toString(36)}`;
    list[name] = [{ name, version: `${1 + (p % 4)}.${p % 10}.${Math.floor(next() * 20)}`, release: `${1 + (p % 3)}`, epoch: null, arch: 'amd64', source }];
  }
  return list;
}

function interfaceFacts(next: () => number, device: string, address: string): Record<string, unknown> {
  return {
    active: true,
    device,
    ipv4: { address, broadcast: address.replace(/\.\d+$/, '.255'), netmask: '255.255.255.0', network: address.replace(/\.\d+$/, '.0') },
    ipv6: [{ address: `fe80::${hex(next, 4)}:${hex(next, 4)}`, prefix: '64', scope: 'link' }],
    macaddress: mac(next),
    module: 'virtio_net',
    mtu: 1500,
    promisc: false,
    speed: -1,
    type: 'ether',
    features: { rx_checksumming: 'on [fixed]', tx_checksumming: 'on', scatter_gather: 'on', tcp_segmentation_offload: 'on', generic_receive_offload: 'on' },
  };
}

function customFact(next: () => number, n: number, withPipList: boolean): unknown {
  if (n === 100 && withPipList) return packages(next, 'py-', 'pip');
  switch (n % 5) {
    case 0: return `v${n}-${hex(next, 6)}`;
    case 1: return Math.floor(next() * 100_000);
    case 2: return [`a${n}`, `b${hex(next, 3)}`];
    case 3: return { on: next() > 0.5, opts: { timeout: Math.floor(next() * 60) } };
    default: return next() > 0.5;
  }
}

/** Facts of host `index` with `keys` top-level keys (at least the standard ones, about 25). */
export function hostFacts(index: number, name: string, keys: number): Record<string, unknown> {
  const next = random(index + 1);
  const address = hostAddress(index);
  const facts: Record<string, unknown> = {
    ansible_hostname: name,
    ansible_fqdn: `${name}.bench.example.com`,
    ansible_nodename: name,
    ansible_distribution: 'Debian',
    ansible_distribution_version: '12.2',
    ansible_distribution_major_version: '12',
    ansible_os_family: 'Debian',
    ansible_architecture: 'x86_64',
    ansible_machine_id: hex(next, 32),
    ansible_kernel: '6.1.0-13-amd64',
    ansible_kernel_version: '#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)',
    ansible_all_ipv4_addresses: [address, '172.17.0.1'],
    ansible_all_ipv6_addresses: [`fe80::${hex(next, 4)}:${hex(next, 4)}`],
    ansible_default_ipv4: { address, alias: 'eth0', gateway: address.replace(/\.\d+$/, '.1'), interface: 'eth0', macaddress: mac(next), mtu: 1500, netmask: '255.255.255.0', type: 'ether' },
    ansible_interfaces: ['lo', 'eth0', 'docker0'],
    ansible_eth0: interfaceFacts(next, 'eth0', address),
    ansible_docker0: interfaceFacts(next, 'docker0', '172.17.0.1'),
    ansible_mounts: ['/', '/var', '/home'].map((mount, m) => ({
      mount, device: `/dev/vda${m + 1}`, fstype: 'ext4', options: 'rw,relatime', block_size: 4096,
      block_total: 2_000_000 + m, block_available: Math.floor(next() * 2_000_000), size_total: 8_192_000_000, size_available: Math.floor(next() * 8e9), uuid: `${hex(next, 8)}-${hex(next, 4)}-${hex(next, 4)}`,
    })),
    ansible_processor: ['0', 'GenuineIntel', 'Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz', '1', 'GenuineIntel', 'Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz'],
    ansible_processor_vcpus: 2,
    ansible_memtotal_mb: 4096,
    ansible_selinux: { status: 'disabled' },
    ansible_python: { executable: '/usr/bin/python3', type: 'cpython', version: { major: 3, minor: 11, micro: 2, releaselevel: 'final', serial: 0 } },
    ansible_env: { HOME: '/root', LANG: 'C.UTF-8', PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', SHELL: '/bin/bash', USER: 'root', PWD: '/root' },
    ansible_date_time: { date: '2026-11-26', epoch: '1795651200', tz: 'UTC' },
    ansible_service_mgr: 'systemd',
    ansible_pkg_mgr: 'apt',
    ansible_packages: packages(next, 'pkg-', 'apt'),
  };
  for (let n = 1; Object.keys(facts).length < keys; n++) facts[`custom_${n}`] = customFact(next, n, index % 3 === 0);
  return facts;
}
