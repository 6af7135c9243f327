// The crash matrix on a real host, half 1 of its points (RERUN-03, RERUN-04, UNI-06, HOST-05):
// what is killed where, and why in two files, is in helpers/crash-host.ts.
import { crashMatrix } from './helpers/crash-host.ts';

crashMatrix(1);
