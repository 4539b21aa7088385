// Packages the JavaScript build and config files import that ship no types.
declare module 'eslint-plugin-n8n-nodes-base';
declare module '@n8n/scan-community-package/scanner/scanner.mjs';
