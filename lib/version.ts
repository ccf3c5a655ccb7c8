/**
 * Service and API version (docs/architecture.md, "API description and version"): the OpenAPI document and the status endpoint report it.
 * @module
 */

/** Version of the service and of its OpenAPI 3.1.0 description (docs/architecture.md, "API description and version"). */
export const VERSION = "0.4.0";
