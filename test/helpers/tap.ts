import type { Test, TestOpts } from 'tap';
import type { BuiltPlugins } from '@tapjs/test';

/** The type of `t` inside a tap test callback. */
export type T = Test<BuiltPlugins, TestOpts> & BuiltPlugins;
