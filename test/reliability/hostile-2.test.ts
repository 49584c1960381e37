/** The hostile input sweep's second half of the routes (./hostile-sweep.ts says what it sends and what it demands). */
import { hostileSweep } from './hostile-sweep.js';

hostileSweep(1, 2);
