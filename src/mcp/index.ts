export * from './types';
export * from './errors';
export * from './classify';
export * from './normalise';
export * from './capabilities';
export * from './traffic';
export * from './session';
export * from './tasks-api';
