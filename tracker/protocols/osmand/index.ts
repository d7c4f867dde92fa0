// OsmAnd is an HTTP protocol: there is no framer, the HTTP route hands over the parsed
// query string or JSON body.
export { decodeOsmAnd, decodeOsmAndJson, decodeOsmAndQuery } from './decoder.js';
export type { OsmAndResult } from './decoder.js';
