/** The hostile input sweep's first half of the routes (./hostile-sweep.ts says what it sends and what it demands). */
import { hostileSweep } from './hostile-sweep.js';

hostileSweep(0, 2);
