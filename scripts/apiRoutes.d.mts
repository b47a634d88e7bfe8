// Types of scripts/apiRoutes.mjs for TypeScript callers (tests).
export interface RouteRow {
  functionName: string;
  method: string;
  path: string;
  source: string;
}
export function readRoutes(root: string): RouteRow[];
export function apiRoutesPlugin(root: string): unknown;
