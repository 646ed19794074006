// The seed goldens under Pyodide (CPython compiled to WebAssembly) in node: the checkout is mounted into Pyodide's
// file system and tools/seed_goldens.py runs there, every seed template x every conversation against its golden.
//
//     npm install --prefix .ci/node pyodide        # once (.ci/run does it)
//     node tools/pyodide_goldens.mjs [PYODIDE_DIR] # PYODIDE_DIR: where the pyodide package is (default: .ci/node)
//
// Exit status: 0 when every pair is its golden, 1 otherwise (2 when Pyodide cannot start).
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const prefix = path.resolve(process.argv[2] || path.join(root, ".ci", "node"));
const require = createRequire(path.join(prefix, "package.json"));

let pyodide;
try {
  const { loadPyodide } = require("pyodide");
  pyodide = await loadPyodide();
} catch (error) {
  console.error(`pyodide: cannot start (${error.message}); install it with npm install --prefix ${prefix} pyodide`);
  process.exit(2);
}
pyodide.FS.mkdir("/checkout");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, "/checkout");
const status = pyodide.runPython(`
import runpy, sys
sys.argv = ["seed_goldens.py"]
try:
    runpy.run_path("/checkout/tools/seed_goldens.py", run_name="__main__")
    status = 0
except SystemExit as done:
    status = done.code or 0
status
`);
process.exit(status);
