// The folder's index: register.ts imports './rules' and gets this file.
export * from './watch-rule';
export { buildRules } from './build';
export { Decision, Strictness, strictness, STRICTNESS_NAMES } from './decision';
