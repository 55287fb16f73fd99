// SPDX-License-Identifier: BSD-3-Clause
// The STRATA_MPI_ENABLE_GROUPS row.  Its accepted values and help text come from
// the group table generated from mpi_functions.spec, so they cannot drift apart.
#include "mpi_config.hpp"

#include <sstream>
#include <utility>
#include <vector>

#include "strata/measurement/config_registry.hpp"
#include "mpi_groups.hpp"

namespace strata::mpi {

namespace {

std::vector<std::string> accepted_values() {
    std::vector<std::string> names = {"default", "all", "none"};
    for (const GroupInfo& g : group_table)
        if (g.kind != GroupKind::derived) names.emplace_back(g.name);
    return names;
}

std::string names_of(std::uint32_t mask) {
    std::string text;
    for (const GroupInfo& g : group_table) {
        if ((mask & g.bit) == 0) continue;
        if (!text.empty()) text += ", ";
        text += g.name;
    }
    return text;
}

std::string long_help() {
    std::ostringstream text;
    text << "Which MPI functions are recorded as regions, by group: a comma-separated list of "
            "the groups below.  \"default\" stands for the groups marked (default), \"all\" for "
            "every group and \"none\" for no MPI region at all; for example "
            "STRATA_MPI_ENABLE_GROUPS=default,type records the default groups and the datatype "
            "functions.  The groups follow Score-P's SCOREP_MPI_ENABLE_GROUPS.\n\n";
    for (const GroupInfo& g : group_table) {
        if (g.kind == GroupKind::derived) continue;
        std::string name = g.name;
        name.resize(7, ' ');
        text << "  " << name << (g.kind == GroupKind::default_on ? "(default) " : "          ")
             << g.description << '\n';
    }
    for (const GroupInfo& g : group_table) {
        if (g.kind != GroupKind::derived) continue;
        text << "\nThe group " << g.name << " (" << g.description << ") cannot be named: it is recorded "
             << "whenever one of " << names_of(g.derived_from)
             << " is enabled, since its requests come from those groups.\n";
    }
    text << "\nMPI calls made while another MPI call is in progress (by the MPI library itself, "
            "or by callbacks it runs) and MPI calls Strata makes itself are never recorded.";
    return text.str();
}

}  // namespace

std::uint32_t group_mask(const std::string& normalized) {
    std::uint32_t mask = 0;
    std::istringstream items(normalized);
    std::string item;
    while (std::getline(items, item, ',')) {
        if (item == "default")
            mask |= default_groups;
        else if (item == "all")
            mask |= all_groups;
        for (const GroupInfo& g : group_table)
            if (item == g.name) mask |= g.bit;
    }
    return apply_derived_groups(mask);
}

Error register_variables(config::Registry& registry, std::function<void(std::uint32_t)> store) {
    config::Variable row;
    row.ns = "MPI";
    row.name = "ENABLE_GROUPS";
    row.type = config::Type::list;
    row.default_value = "default";
    row.accepted = accepted_values();
    row.short_help = "MPI function groups recorded as regions";
    row.long_help = long_help();
    row.store = [store = std::move(store)](const std::string& normalized) { store(group_mask(normalized)); };
    return registry.add_and_load(std::move(row));
}

}  // namespace strata::mpi
