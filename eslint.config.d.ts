// Types of what scripts/layers-picture.ts reads from eslint.config.js: the layers, bottom up,
// as [folder, name] pairs.
export const LAYERS: Array<[string, string]>;
declare const config: unknown;
export default config;
