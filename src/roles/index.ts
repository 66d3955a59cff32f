export { BUILTIN_ROLES } from './builtin-roles.ts';
export { createRoleRegistry, type RoleRegistry } from './registry.ts';
export { BUILTIN_TOOL_NAMES, type BuiltinToolName, defineRole, type Role } from './role.ts';
export { MAX_ROLE_FILE_BYTES } from './role-file.ts';
