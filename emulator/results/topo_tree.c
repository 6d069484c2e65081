/* SPDX-License-Identifier: MIT */
/* The topology tree of report.html (see topo_tree.h). */
#include "results/topo_tree.h"
#include "results/svg.h"

#include <math.h>

#define BOX_GAP 14
#define LINE_H 14
#define LEVEL_GAP 24
#define MARGIN 12
#define HOST_GAP 30

/* Boxes are as wide as the widest text of the drawing needs (set per drawing). */
static int box_w = 150;

struct tnode {
	const char *kind;	/* "host", "bridge", ... : colour and first word */
	char *title;		/* "switch sw0" */
	char *lines[3];		/* detail lines, NULL-terminated early */
	GPtrArray *children;	/* struct tnode * */
	const struct cb_device *dev;	/* for the pool edges */
	double x, y;		/* box centre x, top y */
	int depth;
};

static const struct {
	const char *kind, *fill;
} fills[] = {
	{ "host", "#cfe2f3" }, { "bridge", "#e3e3e3" }, { "port", "#f4f4f4" },
	{ "switch", "#fce5cd" }, { "device", "#d9ead3" }, { "pool", "#ead1dc" },
};

static const char *fill_of(const char *kind)
{
	for (size_t i = 0; i < G_N_ELEMENTS(fills); i++)
		if (!g_strcmp0(fills[i].kind, kind))
			return fills[i].fill;
	return "#fff";
}

static struct tnode *tnode_new(const char *kind, const char *id)
{
	struct tnode *n = g_new0(struct tnode, 1);

	n->kind = kind;
	n->title = g_strdup_printf("%s %s", kind, id);
	n->children = g_ptr_array_new();
	return n;
}

static void tnode_free(struct tnode *n)
{
	for (guint i = 0; i < n->children->len; i++)
		tnode_free(g_ptr_array_index(n->children, i));
	g_ptr_array_unref(n->children);
	g_free(n->title);
	for (int i = 0; i < 3; i++)
		g_free(n->lines[i]);
	g_free(n);
}

static void add_line(struct tnode *n, char *line)
{
	for (int i = 0; i < 3; i++)
		if (!n->lines[i]) {
			n->lines[i] = line;
			return;
		}
	g_free(line);
}

static int nlines(const struct tnode *n)
{
	int k = 0;

	while (k < 3 && n->lines[k])
		k++;
	return k;
}

static char *link_text(const struct cb_link *l)
{
	return g_strdup_printf("link x%d %g GT/s, %.1f GB/s", l->width, l->speed_gts, l->gbps);
}

double topo_path_read_gbps(const struct cb_path *p)
{
	double least = -1;

	for (int i = 0; p && i < p->nhops; i++) {
		const struct cb_hop *h = &p->hops[i];

		if (h->gbps[CB_READ] > 0 && (least < 0 || h->gbps[CB_READ] < least))
			least = h->gbps[CB_READ];
		if (h->cap_gbps > 0 && (least < 0 || h->cap_gbps < least))
			least = h->cap_gbps;
	}
	return least;
}

static struct tnode *device_node(const struct cb_device *d)
{
	struct tnode *n = tnode_new("device", d->id);
	const struct cb_path *p = cb_device_path(d);
	double gbps = topo_path_read_gbps(p);

	n->dev = d;
	add_line(n, g_strdup_printf("%llu MiB %s", (unsigned long long)(d->size / CB_MIB),
				    d->persistent ? "persistent" : "volatile"));
	add_line(n, link_text(&d->link));
	if (gbps > 0)
		add_line(n, g_strdup_printf("path %.1f ns, %.1f GB/s",
					    p->latency_ns[CB_READ], gbps));
	else
		add_line(n, g_strdup_printf("path %.1f ns", p->latency_ns[CB_READ]));
	return n;
}

static struct tnode *port_node(const struct cb_port *p);

static struct tnode *switch_node(const struct cb_switch *sw)
{
	struct tnode *n = tnode_new("switch", sw->id);

	add_line(n, g_strdup_printf("%d ports, +%g ns", sw->nports, sw->latency_ns));
	add_line(n, link_text(&sw->link));
	for (int i = 0; i < sw->nports; i++)
		g_ptr_array_add(n->children, port_node(sw->ports[i]));
	return n;
}

static struct tnode *port_node(const struct cb_port *p)
{
	struct tnode *n = tnode_new("port", p->id);

	add_line(n, g_strdup_printf("%s %d%s", p->kind == CB_PORT_ROOT ? "root port" :
				    "downstream", p->number, p->hotplug ? ", hotplug" : ""));
	if (p->child_kind == CB_NODE_SWITCH)
		g_ptr_array_add(n->children, switch_node(p->child.sw));
	else if (p->child_kind == CB_NODE_DEVICE)
		g_ptr_array_add(n->children, device_node(p->child.dev));
	else
		add_line(n, g_strdup("empty"));
	return n;
}

static struct tnode *host_node(const struct cb_host *h)
{
	struct tnode *n = tnode_new("host", h->id);
	struct cb_bridge *b;

	add_line(n, g_strdup_printf("%d vCPU, %llu MiB DRAM", h->cpus,
				    (unsigned long long)(h->memory / CB_MIB)));
	add_line(n, g_strdup_printf("local %.1f ns, %.1f GB/s", h->local.read_latency_ns,
				    h->local.read_gbps));
	cb_foreach(h->bridges, struct cb_bridge, b) {
		struct tnode *bn = tnode_new("bridge", b->id);
		struct cb_port *p;

		add_line(bn, g_strdup_printf("+%g ns, %.1f GB/s", b->latency_ns, b->gbps));
		cb_foreach(b->rootports, struct cb_port, p)
			g_ptr_array_add(bn->children, port_node(p));
		g_ptr_array_add(n->children, bn);
	}
	return n;
}

static void widest(const struct tnode *n, double *w)
{
	*w = MAX(*w, svg_text_width(n->title, 11) * 1.1);	/* bold */
	for (int i = 0; i < nlines(n); i++)
		*w = MAX(*w, svg_text_width(n->lines[i], 11));
	for (guint i = 0; i < n->children->len; i++)
		widest(g_ptr_array_index(n->children, i), w);
}

/* Leaves left to right from @x; a parent sits over its children. Returns
 * the next free x. */
static double place(struct tnode *n, double x, int depth, int *max_depth)
{
	n->depth = depth;
	*max_depth = MAX(*max_depth, depth);
	if (!n->children->len) {
		n->x = x + box_w / 2.0;
		return x + box_w + BOX_GAP;
	}
	for (guint i = 0; i < n->children->len; i++)
		x = place(g_ptr_array_index(n->children, i), x, depth + 1, max_depth);
	n->x = (((struct tnode *)g_ptr_array_index(n->children, 0))->x +
		((struct tnode *)g_ptr_array_index(n->children, n->children->len - 1))->x) / 2;
	return x;
}

static int box_h(const struct tnode *n)
{
	return 6 + LINE_H * (1 + nlines(n));
}

#define LEVEL_H (6 + LINE_H * 4 + LEVEL_GAP)

static void draw_box(GString *s, const struct tnode *n)
{
	g_autofree char *title = svg_escape(n->title);
	double left = n->x - box_w / 2.0;

	g_string_append_printf(s, "<g class=\"tree-%s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" "
			       "height=\"%d\" rx=\"4\" fill=\"%s\" stroke=\"#555\"/>\n",
			       n->kind, left, n->y, box_w, box_h(n), fill_of(n->kind));
	g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			       "font-weight=\"bold\">%s</text>\n", n->x, n->y + LINE_H, title);
	for (int i = 0; i < nlines(n); i++) {
		g_autofree char *e = svg_escape(n->lines[i]);

		g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				       n->x, n->y + LINE_H * (i + 2), e);
	}
	g_string_append(s, "</g>\n");
}

static void draw(GString *s, struct tnode *n, GHashTable *dev_pos)
{
	n->y = MARGIN + n->depth * LEVEL_H;
	if (n->dev)
		g_hash_table_insert(dev_pos, (gpointer)n->dev, n);
	for (guint i = 0; i < n->children->len; i++) {
		struct tnode *c = g_ptr_array_index(n->children, i);

		c->y = MARGIN + c->depth * LEVEL_H;
		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				       "stroke=\"#555\"/>\n", n->x, n->y + box_h(n), c->x, c->y);
		draw(s, c, dev_pos);
	}
	draw_box(s, n);
}

char *topo_tree_svg(const struct cb_topology *t)
{
	g_autoptr(GString) body = g_string_new(NULL);
	g_autoptr(GPtrArray) roots = g_ptr_array_new_with_free_func((GDestroyNotify)tnode_free);
	g_autoptr(GHashTable) dev_pos = g_hash_table_new(NULL, NULL);
	const struct cb_host *h;
	const struct cb_pool *pool;
	double x = MARGIN, width, pool_x = MARGIN;
	int depth = 0, height, pool_y;

	double w = 0;

	cb_foreach(t->hosts, const struct cb_host, h)
		g_ptr_array_add(roots, host_node(h));
	for (guint i = 0; i < roots->len; i++)
		widest(g_ptr_array_index(roots, i), &w);
	box_w = (int)ceil(w) + 12;
	for (guint i = 0; i < roots->len; i++)
		x = place(g_ptr_array_index(roots, i), x, 0, &depth) + HOST_GAP;
	for (guint i = 0; i < roots->len; i++)
		draw(body, g_ptr_array_index(roots, i), dev_pos);
	width = x - HOST_GAP - BOX_GAP + MARGIN;
	pool_y = MARGIN + (depth + 1) * LEVEL_H;
	height = MARGIN + depth * LEVEL_H + 6 + LINE_H * 4 + MARGIN;

	/* Pools: one box each below the devices, dashed edges to them. */
	cb_foreach(t->pools, const struct cb_pool, pool) {
		g_autofree char *id = g_strdup(pool->id);
		struct tnode *pn = tnode_new("pool", id);
		const struct cb_device *d;
		double sum = 0;
		guint k = 0;

		add_line(pn, g_strdup_printf("%llu MiB, %s", (unsigned long long)(pool->size / CB_MIB),
					     pool->shared ? "shared" : "sliced"));
		cb_foreach(pool->devices, const struct cb_device, d) {
			struct tnode *dn = g_hash_table_lookup(dev_pos, d);

			if (dn) {
				sum += dn->x;
				k++;
			}
		}
		pn->x = MAX(k ? sum / k : pool_x + box_w / 2.0, pool_x + box_w / 2.0);
		pool_x = pn->x + box_w / 2.0 + BOX_GAP;
		pn->y = pool_y;
		cb_foreach(pool->devices, const struct cb_device, d) {
			struct tnode *dn = g_hash_table_lookup(dev_pos, d);

			if (dn)
				g_string_append_printf(body, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
						       "y2=\"%.1f\" stroke=\"#a64d79\" stroke-dasharray=\"5 3\"/>\n",
						       dn->x, dn->y + box_h(dn), pn->x, pn->y);
		}
		draw_box(body, pn);
		width = MAX(width, pool_x - BOX_GAP + MARGIN);
		height = pool_y + box_h(pn) + MARGIN;
		tnode_free(pn);
	}
	return g_strdup_printf("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cxlbed-tree\" "
			       "width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f %d\" "
			       "font-family=\"DejaVu Sans, sans-serif\" font-size=\"11\">\n"
			       "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n%s</svg>\n",
			       ceil(width), height, ceil(width), height, body->str);
}
