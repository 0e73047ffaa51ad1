// The ldap-resolver actor: turns directory group names into SIDs, off the
// request thread.
import type { Config } from '../../src/config/index.js';
import { runActor } from '../../src/runtime/actor.js';

runActor<Config>(async () => ({}));
