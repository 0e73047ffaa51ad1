// The dedupe actor: the ring of recently accepted webhook event ids. One
// thread owns it, so check-and-insert is atomic for every HTTP thread.
import type { Config } from '../../src/config/index.js';
import { runActor } from '../../src/runtime/actor.js';

runActor<Config>(async () => ({}));
