/** The resource types a policy's applies_to and a decision name: those of the composed run kinds' policy facets. */
import { composedField, type Field, type FieldOptions } from '../../api/fields.ts';

/** The composition's vocabulary entry: RunKinds.policyResourceTypes() of the service (composeServices). */
export const POLICY_RESOURCE_TYPES = 'policy resource types';

/** A field (choice or choiceList) of the composed run kinds' policy resource types. */
export const policyResourceTypes = (make: (choices: readonly string[], opts: FieldOptions) => Field, opts: FieldOptions): Field =>
  composedField(POLICY_RESOURCE_TYPES, (types) => make(types as readonly string[], opts), opts);
