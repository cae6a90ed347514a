/**
 * Chevrotain, the one module that imports it. The CLI's bundle (scripts/bundle.mjs)
 * takes the single-file build the package ships (`lib/chevrotain.mjs`), which loads
 * several times faster than the package's entry point of some sixty modules
 * (docs/decisions/0000-chevrotain-bundle.md); tests and tsc's unbundled output
 * load the entry point.
 */

import * as chevrotain from 'chevrotain';

export const { createToken, Lexer, CstParser, EOF } = chevrotain;
