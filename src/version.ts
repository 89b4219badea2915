import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const PRODUCT_NAME = 'Drover';
export const VERSION = pkg.version;
