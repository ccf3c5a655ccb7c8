/**
 * Service and API version (SPEC §9): the OpenAPI document and the status endpoint report it.
 * @module
 */

/** Version of the service and of its OpenAPI 3.1.0 description (SPEC §9). */
export const VERSION = "0.4.0";
