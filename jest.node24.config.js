/**
 * The MCP server's OAuth connector tests: they need Node 22.13 or later (node:sqlite: the grant store) and Debian's
 * redis-server (the store replicas share, its tasks included), run on Node 24 by `npm run test:mcp-oauth`
 * (test/run-node24-jest.sh); the default run (the machine's Node 20) leaves them out.
 */
const base = require('./jest.config');

module.exports = {
	...base,
	roots: ['<rootDir>/packages'],
	testMatch: ['**/test/node24/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/dist/'],
	// Reads the sources only: nothing built is needed.
	globalSetup: undefined,
};
