import { boolean, choice, FieldProblem, ref, text, type Field } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { mayCreateCopy } from '../../api/copy-route.ts';
import { checkExecutionEnvironment, executionEnvironmentAccess } from './execution-environment-access.ts';
import { isImageReference } from './image-reference.ts';
import type { ExecutionEnvironmentRow } from '../../db/tables.ts';

export const PULL_CHOICES = [
  ['', '---------'],
  ['always', 'Always pull container before running.'],
  ['missing', 'Only pull the image if not present before running.'],
  ['never', 'Never pull container before running.'],
] as const;

/** A container image reference, refused with AWX's message when it is not one. */
function imageField(): Field {
  const field = text({
    required: true,
    maxLength: 1024,
    allowBlank: false,
    label: 'Image location',
    helpText: 'The full image location, including the container registry, image name, and version tag.',
  });
  return {
    ...field,
    parse: (value) => {
      const image = field.parse(value) as string;
      if (!isImageReference(image)) throw new FieldProblem(`Invalid container image name ${image}`);
      return image;
    },
  };
}

export const executionEnvironments = defineResource<ExecutionEnvironmentRow>({
  name: 'execution_environment',
  table: 'execution_environments',
  label: 'Execution Environment List',
  description: 'Container images jobs name as their runtime. Jobs run on the node\'s own Ansible; the environment is recorded on each run.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false, helpText: 'Name of this execution environment.' }),
    description: text({ helpText: 'Optional description of this execution environment.' }),
    organization: ref('organization', { default: null, helpText: 'The organization used to determine access to this execution environment.' }),
    image: imageField(),
    managed: boolean({ readOnly: true }),
    credential: ref('credential', { default: null }),
    pull: choice(PULL_CHOICES, { default: '', helpText: 'Pull image before running?' }),
  },
  namedUrl: ['name'],
  search: ['name', 'description', 'image'],
  ordering: '-created',
  unique: [['name']],
  summaryColumns: ['id', 'name', 'description', 'image'],
  access: { ...executionEnvironmentAccess, actions: { copy: mayCreateCopy('execution_environment') } },
  decorate: (row, out) => {
    (out.related as Record<string, string>).copy = `/api/v2/execution_environments/${row.id}/copy/`;
  },
  hooks: { beforeWrite: checkExecutionEnvironment },
});
