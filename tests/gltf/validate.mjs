// Runs the Khronos glTF validator (npm gltf-validator) on every file given and prints one JSON
// array of {file, errors, warnings, infos, messages}. Usage: node validate.mjs MODULE_DIR FILE...
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';

const [moduleDir, ...files] = process.argv.slice(2);
const require = createRequire(path.resolve(moduleDir) + '/');
const validator = require(path.resolve(moduleDir));
const out = [];
for (const file of files) {
  const dir = path.dirname(file);
  try {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 1000,
      externalResourceFunction: (uri) => new Promise((resolve, reject) => {
        fs.readFile(path.resolve(dir, decodeURIComponent(uri)), (err, data) => err ? reject(err.toString()) : resolve(new Uint8Array(data)));
      }),
    });
    out.push({ file, errors: report.issues.numErrors, warnings: report.issues.numWarnings, infos: report.issues.numInfos,
               messages: report.issues.messages.map(m => ({ code: m.code, severity: m.severity, message: m.message, pointer: m.pointer })) });
  } catch (e) {
    out.push({ file, errors: 1, warnings: 0, infos: 0, messages: [{ code: 'VALIDATOR_FAILED', severity: 0, message: String(e) }] });
  }
}
console.log(JSON.stringify(out));
