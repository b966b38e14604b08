//! Building the component graph: names, ports, links, nets, clocks, and its validation.

use crate::component::{Component, ComponentId};
use crate::port::{LinkId, NetId, PortId};
use crate::stats::{CounterId, HistogramId, StatSpec};
use crate::time::{ClockDomain, Tick};
use std::collections::HashMap;
use std::fmt;

/// Errors in a topology, found while building it or when assigning it to partitions. None is
/// recoverable for that topology: fix the model or the partitioning.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TopologyError {
    /// A component's `init` panicked; the simulation was not built.
    #[error("component {component:?} panicked in init")]
    InitPanicked {
        /// The component's name.
        component: String,
    },
    /// A name is not a dotted path of `ident` or `ident[index]` segments.
    #[error("bad name {name:?}: {reason}")]
    BadName {
        /// The offending name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Two components, composites or ports of one owner share a name.
    #[error("duplicate name {name:?}")]
    DuplicateName {
        /// The name used twice.
        name: String,
    },
    /// A hierarchical name whose parent was not declared as a composite first.
    #[error("{name:?}: parent {parent:?} is not a declared composite")]
    UnknownParent {
        /// The child's name.
        name: String,
        /// The missing parent.
        parent: String,
    },
    /// An id that does not belong to this topology.
    #[error("unknown {what} id {id}")]
    UnknownId {
        /// "component", "composite", "port" or "net".
        what: &'static str,
        /// The id.
        id: usize,
    },
    /// A port that no link uses.
    #[error("dangling port {port}: it is not connected to any link")]
    DanglingPort {
        /// `component.port`.
        port: String,
    },
    /// A port that already sends over a link (a port feeds at most one link).
    #[error("port {port} already sends over a link")]
    PortAlreadyLinked {
        /// `component.port`.
        port: String,
    },
    /// An exported port that does not belong to a descendant of the composite.
    #[error("composite {composite} cannot export {port}: not one of its descendants' ports")]
    ExportOutsideComposite {
        /// The composite.
        composite: String,
        /// The port.
        port: String,
    },
    /// A zero-latency link between components in different partitions: no lookahead.
    #[error(
        "zero-latency link {from} -> {to} crosses partitions {from_partition} -> {to_partition}"
    )]
    ZeroLatencyCrossPartition {
        /// Source port.
        from: String,
        /// Destination port.
        to: String,
        /// Source partition.
        from_partition: usize,
        /// Destination partition.
        to_partition: usize,
    },
    /// A zero-latency net whose members are in different partitions.
    #[error("zero-latency net {net} spans partitions")]
    ZeroLatencyNetCrossPartition {
        /// The net's name.
        net: String,
    },
    /// An initial event scheduled before the simulation's start time.
    #[error("initial event for {component} at {at} is before the start time {start}")]
    ScheduleInPast {
        /// The destination component.
        component: String,
        /// The requested time.
        at: Tick,
        /// The start time.
        start: Tick,
    },
    /// More components than the ordering key can name.
    #[error("too many components: at most {max}")]
    TooManyComponents {
        /// The limit ([`MAX_COMPONENTS`](crate::event::MAX_COMPONENTS)).
        max: usize,
    },
    /// A bad partition assignment or count.
    #[error("bad partitioning: {0}")]
    BadPartitioning(String),
    /// A histogram bound hdrhistogram cannot track.
    #[error("histogram {name} of {component}: bad highest value {high}")]
    BadHistogram {
        /// The component.
        component: String,
        /// The histogram.
        name: String,
        /// The bound.
        high: u64,
    },
}

/// A composite: a named node of the hierarchy that groups components and exports their ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompositeId(pub(crate) u32);

pub(crate) struct CompSpec<M> {
    pub(crate) name: String,
    pub(crate) model: Box<dyn Component<M>>,
    pub(crate) weight: u64,
    pub(crate) clock: Option<ClockDomain>,
    pub(crate) primary: bool,
    pub(crate) stats: StatSpec,
}

#[derive(Clone, Debug)]
pub(crate) struct PortSpec {
    /// Owning component (for exported ports: the component owning the resolved port).
    pub(crate) owner: u32,
    pub(crate) name: String,
    /// For a composite's exported port: the port it stands for.
    pub(crate) alias: Option<u32>,
    pub(crate) used: bool,
    pub(crate) sends: bool,
}

/// A link as declared.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinkSpec {
    pub(crate) src_port: u32,
    pub(crate) dst_port: u32,
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) latency: Tick,
    pub(crate) weight: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct NetSpec {
    pub(crate) name: String,
    pub(crate) latency: Tick,
    pub(crate) members: Vec<u32>,
}

/// Builds and validates a component graph. Setup only: nothing runs until
/// [`SimInit::init`](crate::engine::SimInit::init).
pub struct TopologyBuilder<M> {
    pub(crate) comps: Vec<CompSpec<M>>,
    composites: Vec<String>,
    names: HashMap<String, ()>,
    pub(crate) ports: Vec<PortSpec>,
    port_names: HashMap<(u32, bool, String), ()>,
    pub(crate) links: Vec<LinkSpec>,
    pub(crate) nets: Vec<NetSpec>,
    pub(crate) initial: Vec<(u32, Tick, M)>,
}

impl<M> fmt::Debug for TopologyBuilder<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TopologyBuilder")
            .field("components", &self.comps.len())
            .field("ports", &self.ports.len())
            .field("links", &self.links.len())
            .field("nets", &self.nets.len())
            .finish()
    }
}

impl<M> Default for TopologyBuilder<M> {
    fn default() -> Self {
        TopologyBuilder::new()
    }
}

/// Checks that `name` is a dotted path of `ident` / `ident[index]` segments.
pub fn validate_name(name: &str) -> Result<(), TopologyError> {
    let bad = |reason| TopologyError::BadName {
        name: name.to_owned(),
        reason,
    };
    if name.is_empty() {
        return Err(bad("empty"));
    }
    for seg in name.split('.') {
        let (ident, index) = match seg.find('[') {
            Some(i) => (&seg[..i], Some(&seg[i..])),
            None => (seg, None),
        };
        let mut chars = ident.chars();
        match chars.next() {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
            _ => return Err(bad("each segment must start with a letter or '_'")),
        }
        if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(bad("segments hold only letters, digits and '_'"));
        }
        if let Some(ix) = index {
            let digits = ix
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .ok_or_else(|| bad("an index is written [digits] at the end of a segment"))?;
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                return Err(bad("an index is written [digits] at the end of a segment"));
            }
        }
    }
    Ok(())
}

fn parent_of(name: &str) -> Option<&str> {
    name.rfind('.').map(|i| &name[..i])
}

impl<M> TopologyBuilder<M> {
    /// An empty topology.
    pub fn new() -> TopologyBuilder<M> {
        TopologyBuilder {
            comps: Vec::new(),
            composites: Vec::new(),
            names: HashMap::new(),
            ports: Vec::new(),
            port_names: HashMap::new(),
            links: Vec::new(),
            nets: Vec::new(),
            initial: Vec::new(),
        }
    }

    fn claim_name(&mut self, name: &str) -> Result<(), TopologyError> {
        validate_name(name)?;
        if self.names.contains_key(name) {
            return Err(TopologyError::DuplicateName {
                name: name.to_owned(),
            });
        }
        if let Some(parent) = parent_of(name) {
            if !self.composites.iter().any(|c| c == parent) {
                return Err(TopologyError::UnknownParent {
                    name: name.to_owned(),
                    parent: parent.to_owned(),
                });
            }
        }
        self.names.insert(name.to_owned(), ());
        Ok(())
    }

    fn comp(&self, c: ComponentId) -> Result<&CompSpec<M>, TopologyError> {
        self.comps.get(c.index()).ok_or(TopologyError::UnknownId {
            what: "component",
            id: c.index(),
        })
    }

    fn comp_mut(&mut self, c: ComponentId) -> Result<&mut CompSpec<M>, TopologyError> {
        self.comps
            .get_mut(c.index())
            .ok_or(TopologyError::UnknownId {
                what: "component",
                id: c.index(),
            })
    }

    /// Declares a composite (a grouping node such as `soc.xcd[0]`); its parent, if any, must
    /// already be a composite.
    pub fn composite(&mut self, name: &str) -> Result<CompositeId, TopologyError> {
        self.claim_name(name)?;
        self.composites.push(name.to_owned());
        Ok(CompositeId(self.composites.len() as u32 - 1))
    }

    /// Adds a component called `name` (whose parent, if any, must be a declared composite).
    pub fn add(
        &mut self,
        name: &str,
        model: impl Component<M> + 'static,
    ) -> Result<ComponentId, TopologyError> {
        self.add_boxed(name, Box::new(model))
    }

    /// [`TopologyBuilder::add`] for an already boxed component.
    pub fn add_boxed(
        &mut self,
        name: &str,
        model: Box<dyn Component<M>>,
    ) -> Result<ComponentId, TopologyError> {
        if self.comps.len() >= crate::event::MAX_COMPONENTS {
            return Err(TopologyError::TooManyComponents {
                max: crate::event::MAX_COMPONENTS,
            });
        }
        self.claim_name(name)?;
        self.comps.push(CompSpec {
            name: name.to_owned(),
            model,
            weight: 1,
            clock: None,
            primary: false,
            stats: StatSpec::default(),
        });
        Ok(ComponentId(self.comps.len() as u32 - 1))
    }

    /// Declares port `name` on component `c`.
    pub fn port(&mut self, c: ComponentId, name: &str) -> Result<PortId, TopologyError> {
        self.comp(c)?;
        validate_name(name)?;
        let key = (c.0, false, name.to_owned());
        if self.port_names.insert(key, ()).is_some() {
            return Err(TopologyError::DuplicateName {
                name: format!("{}.{name}", self.comps[c.index()].name),
            });
        }
        self.ports.push(PortSpec {
            owner: c.0,
            name: name.to_owned(),
            alias: None,
            used: false,
            sends: false,
        });
        Ok(PortId(self.ports.len() as u32 - 1))
    }

    /// Exports `inner` (a port of one of the composite's descendants) as the composite's port
    /// `name`; links to or from the returned port connect to `inner`.
    pub fn export(
        &mut self,
        composite: CompositeId,
        name: &str,
        inner: PortId,
    ) -> Result<PortId, TopologyError> {
        let cname = self
            .composites
            .get(composite.0 as usize)
            .ok_or(TopologyError::UnknownId {
                what: "composite",
                id: composite.0 as usize,
            })?
            .clone();
        validate_name(name)?;
        let target = self.resolve(inner)?;
        let owner = self.ports[target as usize].owner;
        let owner_name = &self.comps[owner as usize].name;
        if !owner_name.starts_with(&format!("{cname}.")) {
            return Err(TopologyError::ExportOutsideComposite {
                composite: cname,
                port: self.port_name(target),
            });
        }
        if self
            .port_names
            .insert((composite.0, true, name.to_owned()), ())
            .is_some()
        {
            return Err(TopologyError::DuplicateName {
                name: format!("{cname}.{name}"),
            });
        }
        self.ports.push(PortSpec {
            owner,
            name: format!("{cname}.{name}"),
            alias: Some(target),
            used: true,
            sends: false,
        });
        Ok(PortId(self.ports.len() as u32 - 1))
    }

    fn resolve(&self, p: PortId) -> Result<u32, TopologyError> {
        let spec = self.ports.get(p.index()).ok_or(TopologyError::UnknownId {
            what: "port",
            id: p.index(),
        })?;
        // Aliases always point at a resolved component port (see `export`).
        Ok(spec.alias.unwrap_or(p.0))
    }

    pub(crate) fn port_name(&self, p: u32) -> String {
        let s = &self.ports[p as usize];
        if s.alias.is_some() {
            s.name.clone()
        } else {
            format!("{}.{}", self.comps[s.owner as usize].name, s.name)
        }
    }

    /// Connects output port `from` to input port `to` with a fixed latency and cut weight 1.
    pub fn connect(
        &mut self,
        from: PortId,
        to: PortId,
        latency: Tick,
    ) -> Result<LinkId, TopologyError> {
        self.connect_weighted(from, to, latency, 1)
    }

    /// [`TopologyBuilder::connect`] with a weight: how much traffic the automatic
    /// partitioner should expect on this link (it avoids cutting heavy links).
    pub fn connect_weighted(
        &mut self,
        from: PortId,
        to: PortId,
        latency: Tick,
        weight: u64,
    ) -> Result<LinkId, TopologyError> {
        let s = self.resolve(from)?;
        let d = self.resolve(to)?;
        if self.ports[s as usize].sends {
            return Err(TopologyError::PortAlreadyLinked {
                port: self.port_name(s),
            });
        }
        self.ports[s as usize].sends = true;
        self.ports[s as usize].used = true;
        self.ports[d as usize].used = true;
        self.links.push(LinkSpec {
            src_port: s,
            dst_port: d,
            src: self.ports[s as usize].owner,
            dst: self.ports[d as usize].owner,
            latency,
            weight,
        });
        Ok(LinkId(self.links.len() as u32 - 1))
    }

    /// Declares a net: any member can send to any member, arriving no sooner than `latency`.
    pub fn net(&mut self, name: &str, latency: Tick) -> Result<NetId, TopologyError> {
        validate_name(name)?;
        if self.nets.iter().any(|n| n.name == name) {
            return Err(TopologyError::DuplicateName {
                name: name.to_owned(),
            });
        }
        self.nets.push(NetSpec {
            name: name.to_owned(),
            latency,
            members: Vec::new(),
        });
        Ok(NetId(self.nets.len() as u32 - 1))
    }

    /// Makes `c` a member of `net`.
    pub fn join(&mut self, net: NetId, c: ComponentId) -> Result<(), TopologyError> {
        self.comp(c)?;
        let n = self
            .nets
            .get_mut(net.index())
            .ok_or(TopologyError::UnknownId {
                what: "net",
                id: net.index(),
            })?;
        n.members.push(c.0);
        Ok(())
    }

    /// Makes `c` a clocked component ticking on `clock` (it starts asleep; wake it in `init`).
    pub fn clock(&mut self, c: ComponentId, clock: ClockDomain) -> Result<(), TopologyError> {
        self.comp_mut(c)?.clock = Some(clock);
        Ok(())
    }

    /// Sets `c`'s load weight for the automatic partitioner (default 1).
    pub fn weight(&mut self, c: ComponentId, weight: u64) -> Result<(), TopologyError> {
        self.comp_mut(c)?.weight = weight;
        Ok(())
    }

    /// Makes `c` a primary: when a model has primaries, a run completes once all of them
    /// have called [`Ctx::release_primary`](crate::component::Ctx::release_primary), even if
    /// events are still pending (clocks that tick forever, say): after every event before the
    /// last release's time plus the exit horizon (see the exit rule in [`crate::engine`]).
    pub fn primary(&mut self, c: ComponentId) -> Result<(), TopologyError> {
        self.comp_mut(c)?.primary = true;
        Ok(())
    }

    /// Declares a counter of `c`.
    pub fn counter(&mut self, c: ComponentId, name: &str) -> Result<CounterId, TopologyError> {
        let s = &mut self.comp_mut(c)?.stats;
        if s.counters.iter().any(|n| n == name) {
            return Err(TopologyError::DuplicateName {
                name: name.to_owned(),
            });
        }
        s.counters.push(name.to_owned());
        Ok(CounterId(s.counters.len() as u32 - 1))
    }

    /// Declares a histogram of `c` tracking values up to `highest` with 3 significant digits
    /// (larger values are clamped to `highest`).
    pub fn histogram(
        &mut self,
        c: ComponentId,
        name: &str,
        highest: u64,
    ) -> Result<HistogramId, TopologyError> {
        let cname = self.comp(c)?.name.clone();
        if !crate::stats::valid_hist_bound(highest) {
            return Err(TopologyError::BadHistogram {
                component: cname,
                name: name.to_owned(),
                high: highest,
            });
        }
        let s = &mut self.comp_mut(c)?.stats;
        if s.histograms.iter().any(|(n, _)| n == name) {
            return Err(TopologyError::DuplicateName {
                name: name.to_owned(),
            });
        }
        s.histograms.push((name.to_owned(), highest));
        Ok(HistogramId(s.histograms.len() as u32 - 1))
    }

    /// Schedules an external-class event for `c` at `at` (checked against the start time by
    /// [`SimInit::init`](crate::engine::SimInit::init)).
    pub fn initial_event(&mut self, c: ComponentId, at: Tick, msg: M) -> Result<(), TopologyError> {
        self.comp(c)?;
        self.initial.push((c.0, at, msg));
        Ok(())
    }

    /// Number of components so far.
    pub fn len(&self) -> usize {
        self.comps.len()
    }

    /// Whether no component has been added.
    pub fn is_empty(&self) -> bool {
        self.comps.is_empty()
    }

    /// Validates the graph: every declared component port must be used by a link.
    pub fn build(self) -> Result<Topology<M>, TopologyError> {
        for (i, p) in self.ports.iter().enumerate() {
            if p.alias.is_none() && !p.used {
                return Err(TopologyError::DanglingPort {
                    port: self.port_name(i as u32),
                });
            }
        }
        let port_names = (0..self.ports.len() as u32)
            .map(|p| self.port_name(p))
            .collect();
        Ok(Topology {
            comps: self.comps,
            ports: self.ports,
            port_names,
            links: self.links,
            nets: self.nets,
            initial: self.initial,
        })
    }
}

/// A validated component graph, ready to be partitioned and initialized.
pub struct Topology<M> {
    pub(crate) comps: Vec<CompSpec<M>>,
    pub(crate) ports: Vec<PortSpec>,
    pub(crate) port_names: Vec<String>,
    pub(crate) links: Vec<LinkSpec>,
    pub(crate) nets: Vec<NetSpec>,
    pub(crate) initial: Vec<(u32, Tick, M)>,
}

impl<M> fmt::Debug for Topology<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Topology")
            .field("components", &self.comps.len())
            .field("links", &self.links.len())
            .field("nets", &self.nets.len())
            .finish()
    }
}

impl<M> Topology<M> {
    /// Number of components.
    pub fn len(&self) -> usize {
        self.comps.len()
    }

    /// Whether the topology has no component.
    pub fn is_empty(&self) -> bool {
        self.comps.is_empty()
    }

    /// The id of the component called `name`.
    pub fn find(&self, name: &str) -> Option<ComponentId> {
        self.comps
            .iter()
            .position(|c| c.name == name)
            .map(|i| ComponentId(i as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_validated() {
        for good in ["soc", "soc.xcd[0].se[1].cu[3]", "_a.b_2[10]"] {
            assert!(validate_name(good).is_ok(), "{good}");
        }
        for bad in [
            "", "soc..x", "3a", "a[", "a[]", "a[x]", "a-b", "a[1]b", "a.",
        ] {
            assert!(
                matches!(validate_name(bad), Err(TopologyError::BadName { .. })),
                "{bad}"
            );
        }
    }
}
