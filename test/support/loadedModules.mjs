// Node flag `--import` for a paymirror process under test: appends every module URL it loads
// to the file named by PAYMIRROR_TEST_LOADED_MODULES, one per line.
import { register } from 'node:module';

register('./loadedModulesHooks.mjs', import.meta.url);
