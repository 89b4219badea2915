import { Link } from 'react-router';
import { Button, Card, CardBody, CardTitle, DescriptionList, DescriptionListDescription, DescriptionListGroup, DescriptionListTerm, Flex, List, ListItem } from '@patternfly/react-core';
import { LinkIcon, PencilAltIcon, PlusCircleIcon, TrashIcon, UnlinkIcon } from '@patternfly/react-icons';
import { templatePath } from '../../resources/run-paths';
import { NodePromptsDetail } from './NodePromptsDetail';
import { START } from './WorkflowCanvas';
import { EDGE_LABELS, kindLabel, kindOf, nodeName, templateOf, type TemplateNode, type WorkflowEdge } from './workflow-graph';

const TEMPLATE_TYPES: Record<string, string> = {
  job: 'job_template',
  workflow_job: 'workflow_job_template',
  project_update: 'project',
  inventory_update: 'inventory_source',
  workflow_approval: 'workflow_approval_template',
};

/** What is selected in the graph, its links, and what may be done with it (for an editor). */
export function SelectionPanel({ selection, empty, byId, edges, canEdit, onAddAfter, onEdit, onDelete, onLink, onUnlink }: {
  selection: TemplateNode | typeof START | undefined;
  empty: boolean;
  byId: Map<number, TemplateNode>;
  edges: WorkflowEdge[];
  canEdit: boolean;
  onAddAfter: (parent: number | null) => void;
  onEdit: (node: TemplateNode) => void;
  onDelete: (node: TemplateNode) => void;
  onLink: (node: TemplateNode) => void;
  onUnlink: (edge: WorkflowEdge) => void;
}) {
  if (selection === START || selection === undefined) {
    return (
      <Card isPlain isCompact>
        <CardTitle>{selection === START ? 'Start' : 'Nothing selected'}</CardTitle>
        <CardBody>
          {empty ? 'This workflow has no nodes yet.' : 'Choose a node of the graph to see its links.'}
          {canEdit && selection === START && (
            <div style={{ marginTop: '0.75rem' }}>
              <Button variant="secondary" icon={<PlusCircleIcon />} onClick={() => onAddAfter(null)}>Add a first node</Button>
            </div>
          )}
        </CardBody>
      </Card>
    );
  }
  const node = selection;
  const template = templateOf(node);
  const kind = kindOf(node);
  const outgoing = edges.filter((e) => e.parent === node.id);
  const incoming = edges.filter((e) => e.child === node.id);
  const name = nodeName(node);
  const linkList = (list: WorkflowEdge[], other: (e: WorkflowEdge) => number, label: string) =>
    list.length ? (
      <List isPlain aria-label={label}>
        {list.map((e) => {
          const otherName = nodeName(byId.get(other(e)) ?? { id: other(e) });
          return (
            <ListItem key={`${e.parent}-${e.kind}-${e.child}`}>
              <Flex spaceItems={{ default: 'spaceItemsSm' }} alignItems={{ default: 'alignItemsCenter' }} flexWrap={{ default: 'nowrap' }}>
                <span>
                  {EDGE_LABELS[e.kind]}: {otherName}
                </span>
                {canEdit && (
                  <Button variant="plain" size="sm" icon={<UnlinkIcon />} aria-label={`Remove link ${EDGE_LABELS[e.kind].toLowerCase()} from ${nodeName(byId.get(e.parent)!)} to ${nodeName(byId.get(e.child)!)}`} onClick={() => onUnlink(e)} />
                )}
              </Flex>
            </ListItem>
          );
        })}
      </List>
    ) : (
      'None'
    );

  return (
    <Card isPlain isCompact aria-label={`Selected node ${name}`}>
      <CardTitle>{name}</CardTitle>
      <CardBody>
        <DescriptionList isCompact>
          <DescriptionListGroup>
            <DescriptionListTerm>Type</DescriptionListTerm>
            <DescriptionListDescription>{kindLabel(kind)}</DescriptionListDescription>
          </DescriptionListGroup>
          {template && kind && (
            <DescriptionListGroup>
              <DescriptionListTerm>Template</DescriptionListTerm>
              <DescriptionListDescription>
                <Link to={templatePath({ id: template.id, type: TEMPLATE_TYPES[kind] ?? 'job_template' })}>{template.name}</Link>
              </DescriptionListDescription>
            </DescriptionListGroup>
          )}
          {kind !== 'workflow_approval' && <NodePromptsDetail node={node} />}
          <DescriptionListGroup>
            <DescriptionListTerm>Runs when</DescriptionListTerm>
            <DescriptionListDescription>{node.all_parents_must_converge ? 'All parents reach it' : 'Any parent reaches it'}</DescriptionListDescription>
          </DescriptionListGroup>
          <DescriptionListGroup>
            <DescriptionListTerm>After</DescriptionListTerm>
            <DescriptionListDescription>{incoming.length ? linkList(incoming, (e) => e.parent, `Links into ${name}`) : 'Start'}</DescriptionListDescription>
          </DescriptionListGroup>
          <DescriptionListGroup>
            <DescriptionListTerm>Then</DescriptionListTerm>
            <DescriptionListDescription>{linkList(outgoing, (e) => e.child, `Links from ${name}`)}</DescriptionListDescription>
          </DescriptionListGroup>
        </DescriptionList>
        {canEdit && (
          <Flex spaceItems={{ default: 'spaceItemsSm' }} style={{ marginTop: '1rem' }}>
            <Button variant="secondary" size="sm" icon={<PlusCircleIcon />} onClick={() => onAddAfter(node.id)}>Add after</Button>
            <Button variant="secondary" size="sm" icon={<LinkIcon />} onClick={() => onLink(node)}>Link</Button>
            <Button variant="secondary" size="sm" icon={<PencilAltIcon />} onClick={() => onEdit(node)}>Edit</Button>
            <Button variant="danger" size="sm" icon={<TrashIcon />} onClick={() => onDelete(node)}>Delete</Button>
          </Flex>
        )}
      </CardBody>
    </Card>
  );
}
