#!/usr/bin/env -S node --max-semi-space-size=64
// A 64 MB young generation: the service allocates many short-lived objects per request, and
// fewer scavenges keep request latency steady (see docs/benchmarks.md, launch API).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
