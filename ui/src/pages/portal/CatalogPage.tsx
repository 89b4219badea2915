import { useState } from 'react';
import { Link } from 'react-router';
import {
  Button,
  Card,
  CardBody,
  CardFooter,
  CardHeader,
  CardTitle,
  EmptyState,
  EmptyStateBody,
  Label,
  LabelGroup,
  PageSection,
  SearchInput,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { CatalogIcon } from './CatalogIcon';
import './portal.css';

type Item = ResourceObject<'service_catalog_items'>;

const OTHER = 'Other';
const CARDS = 200;

/** Items by category, categories by name, the uncategorized last. */
function byCategory(items: Item[]): [string, Item[]][] {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const category = item.category.trim() || OTHER;
    groups.set(category, [...(groups.get(category) ?? []), item]);
  }
  return [...groups].sort(([a], [b]) => (a === OTHER ? 1 : b === OTHER ? -1 : a.localeCompare(b)));
}

/** The self-service catalog: the enabled items the user may request, as cards by category. */
export default function CatalogPage() {
  const [search, setSearch] = useState('');
  const page = usePage<Item>(withQuery('/api/v2/service_catalog_items/', { enabled: 'true', search, order_by: 'name', page_size: CARDS }));
  const items = page.data?.results ?? [];
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">Catalog</Title>
        <p>Automation your organizations offer you: pick an item, answer its questions, and follow your request under My requests.</p>
      </PageSection>
      <PageSection>
        <Toolbar>
          <ToolbarContent>
            <ToolbarItem>
              <SearchInput aria-label="Search the catalog" placeholder="Search" value={search} onChange={(_e, v) => setSearch(v)} onClear={() => setSearch('')} />
            </ToolbarItem>
          </ToolbarContent>
        </Toolbar>
        <ErrorAlert error={page.error} />
        {page.isPending ? (
          <Loading />
        ) : items.length === 0 && !page.error ? (
          <EmptyState titleText={search ? 'No items match' : 'The catalog is empty'} headingLevel="h2">
            <EmptyStateBody>{search ? 'Change the search.' : 'Nothing is offered to you yet. The admins of your organization add catalog items.'}</EmptyStateBody>
          </EmptyState>
        ) : (
          byCategory(items).map(([category, inCategory]) => (
            <section key={category} aria-label={category}>
              <Title headingLevel="h2" size="lg">{category}</Title>
              <div className="drover-catalog-grid">
                {inCategory.map((item) => <ItemCard key={item.id} item={item} />)}
              </div>
            </section>
          ))
        )}
        {(page.data?.count ?? 0) > CARDS && <p>{`Showing ${CARDS} of ${page.data?.count} items: search to find the others.`}</p>}
      </PageSection>
    </>
  );
}

function ItemCard({ item }: { item: Item }) {
  const titleId = `catalog-item-${item.id}`;
  const organization = (item.summary_fields as { organization?: { name?: string } }).organization?.name;
  return (
    <Card isCompact aria-labelledby={titleId} data-item={item.name}>
      <CardHeader>
        <CardTitle id={titleId} className="drover-catalog-card-title">
          <CatalogIcon icon={item.icon} />
          <span>{item.name}</span>
        </CardTitle>
      </CardHeader>
      <CardBody>
        {item.description && <p className="drover-catalog-description">{item.description}</p>}
        <LabelGroup numLabels={6} aria-label={`About ${item.name}`}>
          {item.workflow_job_template ? <Label isCompact color="purple">Workflow</Label> : null}
          {item.requires_approval ? <Label isCompact color="orange">Requires approval</Label> : null}
          {organization && <Label isCompact>{organization}</Label>}
          {(Array.isArray(item.tags) ? item.tags : []).map((tag) => <Label key={String(tag)} isCompact variant="outline">{String(tag)}</Label>)}
        </LabelGroup>
      </CardBody>
      <CardFooter>
        <Link to={`/catalog/${item.id}`} aria-label={`Request ${item.name}`}>
          <Button variant="primary" component="span">Request</Button>
        </Link>
      </CardFooter>
    </Card>
  );
}
