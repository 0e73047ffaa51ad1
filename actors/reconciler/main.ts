// The reconciler actor: repairs drift between the wiki folders on SMB and
// the search index on a timer.
import type { Config } from '../../src/config/index.js';
import { runActor } from '../../src/runtime/actor.js';

runActor<Config>(async () => ({}));
