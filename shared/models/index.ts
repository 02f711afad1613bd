/**
 * `recordgate/models`: what a team's model file imports when recordgate is its dependency
 * (docs/deploying.md, "Adopting recordgate without forking it"). zod comes from here too, so that the team's schemas
 * and the service's code share one zod: the one the functions are bundled with. `zm` is zod/mini,
 * which the shipped models use to keep cold starts small; `z` is the full API.
 */
export * from './define';
export * as zm from '../zod';
export * as z from 'zod';
