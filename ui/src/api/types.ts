/** What every object of the API carries (AWX's shape). */
export interface ApiObject {
  id: number;
  type: string;
  url: string;
  related: Record<string, string>;
  summary_fields: SummaryFields;
  name?: string;
  description?: string;
  created?: string;
  modified?: string;
  [field: string]: unknown;
}

export interface UserCapabilities {
  edit?: boolean;
  delete?: boolean;
  start?: boolean;
  schedule?: boolean;
  copy?: boolean;
  adhoc?: boolean;
  [action: string]: boolean | undefined;
}

export interface SummaryFields {
  user_capabilities?: UserCapabilities;
  object_roles?: Record<string, { id: number; name: string; description: string; user_only?: boolean }>;
  [name: string]: unknown;
}

/** OPTIONS metadata of one field. */
export interface FieldMeta {
  type: string;
  label?: string;
  help_text?: string;
  required?: boolean;
  read_only?: boolean;
  filterable?: boolean;
  choices?: [string | number, string][];
  default?: unknown;
  allow_null?: boolean;
  max_length?: number;
  [key: string]: unknown;
}

export interface OptionsDoc {
  name: string;
  description?: string;
  actions?: { GET?: Record<string, FieldMeta>; POST?: Record<string, FieldMeta>; PUT?: Record<string, FieldMeta> };
  search_fields?: string[];
  related_search_fields?: string[];
  types?: string[];
}

export interface Me {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  is_superuser: boolean;
  is_system_auditor: boolean;
}
