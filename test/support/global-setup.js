// Some suites check what the build produces (the Node-RED editor HTML, the package scorecard), so
// every jest run tests a fresh build of the current sources. About 5 s.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async () => {
	if (process.env.CHAT_MESSAGING_SKIP_BUILD === '1') return;
	execFileSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
};
