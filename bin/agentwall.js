#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli.ts');
// Exit explicitly: keep-alive sockets of finished servers must not hold the process.
process.exit(await main(process.argv.slice(2)));
