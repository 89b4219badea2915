/** npm run build: the console's API types, then its production bundle into ui/dist (served at /). */
import path from 'node:path';
import { build } from 'vite';
import { writeApiTypes } from './ui-api-types.ts';

await writeApiTypes();
await build({ configFile: path.resolve(import.meta.dirname, '../ui/vite.config.ts'), logLevel: 'warn' });
console.log('built the web console into ui/dist');
