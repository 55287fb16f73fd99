// SPDX-License-Identifier: BSD-3-Clause
// The instrumentation of one function:
//
//   static strata_plugin_function __strata_fn.N = {0, line, "mangled", "name", "file"};
//   f() {
//     h = __strata_fn.N.handle; if (h != FILTERED) strata_plugin_enter(&__strata_fn.N);
//     try { <body> }
//     finally { h = __strata_fn.N.handle; if (h != FILTERED) strata_plugin_exit(&__strata_fn.N); }
//   }
//
// The same shape as GCC's own -finstrument-functions (gimplify.cc), which the EH lowering then
// turns into a check on every return and on every path an exception unwinds through.
// GCC's headers in the order they need (gcc-plugin.h first): not sorted.
// clang-format off
#include "gcc-plugin.h"

#include "tree.h"
#include "context.h"
#include "tree-pass.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-expr.h"
#include "gimple-iterator.h"
#include "gimplify.h"
#include "stringpool.h"
#include "stor-layout.h"
#include "cgraph.h"
#include "langhooks.h"
#include "attribs.h"
#include "varasm.h"
#include "ggc.h"
#include "gtype-desc.h"
// clang-format on

#include "instrument_pass.hpp"

#include <climits>
#include <cstring>
#include <string>

#include "plugin_function.h"

namespace strata::gcc_plugin {
namespace {

/// The trees shared by all functions of the translation unit, built on first use.  Plain
/// pointers, so registered as roots with GCC's garbage collector (gc_roots()).
struct Trees {
    tree descriptor_type;
    tree handle_field;
    tree enter_fn;
    tree exit_fn;
};
Trees g_trees = {NULL_TREE, NULL_TREE, NULL_TREE, NULL_TREE};
static_assert(sizeof(Trees) == 4 * sizeof(tree), "g_trees is walked as an array of trees");

const ggc_root_tab g_roots[] = {
    {&g_trees, 4, sizeof(tree), &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node},
    LAST_GGC_ROOT_TAB,
};

void add_field(const char* name, tree type, tree* chain) {
    tree field = build_decl(BUILTINS_LOCATION, FIELD_DECL, get_identifier(name), type);
    DECL_CHAIN(field) = *chain;
    *chain = field;
}

/// struct strata_plugin_function (plugin_function.h), field by field.
void build_trees(Trees& t) {
    static_assert(sizeof(uint32_t) * CHAR_BIT == 32 && sizeof(unsigned) == sizeof(uint32_t),
                  "the descriptor's handle and line are unsigned int");
    const tree string_type = build_pointer_type(build_qualified_type(char_type_node, TYPE_QUAL_CONST));
    tree fields = NULL_TREE;  // last field first: finish_builtin_struct reverses the chain
    add_field("handle", unsigned_type_node, &fields);
    add_field("line", unsigned_type_node, &fields);
    add_field("mangled", string_type, &fields);
    add_field("name", string_type, &fields);
    add_field("file", string_type, &fields);
    t.descriptor_type = make_node(RECORD_TYPE);
    finish_builtin_struct(t.descriptor_type, "strata_plugin_function", fields, NULL_TREE);
    t.handle_field = TYPE_FIELDS(t.descriptor_type);

    const tree fn_type =
        build_function_type_list(void_type_node, build_pointer_type(t.descriptor_type), NULL_TREE);
    const auto declare = [&](const char* name) {
        tree fn = build_fn_decl(name, fn_type);
        // The runtime never throws: no EH edges around the calls.
        TREE_NOTHROW(fn) = 1;
        DECL_VISIBILITY(fn) = VISIBILITY_DEFAULT;
        DECL_VISIBILITY_SPECIFIED(fn) = 1;
        // Weak: objects compiled with the plugin still link and run without Strata's runtime
        // (as -finstrument-functions code does with glibc's empty hooks); the calls are then
        // skipped (add_checked_call).
        declare_weak(fn);
        return fn;
    };
    t.enter_fn = declare("strata_plugin_enter");
    t.exit_fn = declare("strata_plugin_exit");
}

/// The assembler name without the '*' GCC puts before names given with asm("...").
const char* assembler_name(tree fndecl) {
    const char* name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl));
    return name[0] == '*' ? name + 1 : name;
}

/// The source file as the descriptor holds it: as DWARF names it, a relative name is relative
/// to the compilation directory; none for <built-in> and <command-line>.
std::string descriptor_file(tree fndecl) {
    std::string file = DECL_SOURCE_FILE(fndecl) != nullptr ? DECL_SOURCE_FILE(fndecl) : "";
    if (!file.empty() && file[0] != '/' && file[0] != '<') file = std::string(getpwd()) + "/" + file;
    if (!file.empty() && file[0] == '<') file.clear();
    return file;
}

/// True for the functions GCC's -finstrument-functions would instrument, minus those the filter
/// leaves out and the bodies of OpenMP constructs (the OpenMP adapter records the construct).
bool wanted(tree fndecl, const CompileTimeFilter& filter) {
    // Without -finstrument-functions the front ends set DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT
    // on every function, so GCC's rule is applied from its sources: the attribute, and the
    // static constructors and destructors GCC itself generates (_GLOBAL__sub_I_...).
    if (lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(fndecl)) != NULL_TREE) return false;
    if (DECL_ARTIFICIAL(fndecl) && (DECL_STATIC_CONSTRUCTOR(fndecl) || DECL_STATIC_DESTRUCTOR(fndecl)))
        return false;
    // GCC does not instrument extern inline always_inline functions either.
    if (DECL_DECLARED_INLINE_P(fndecl) && DECL_EXTERNAL(fndecl) && DECL_DISREGARD_INLINE_LIMITS(fndecl))
        return false;
    if (lookup_attribute("naked", DECL_ATTRIBUTES(fndecl)) != NULL_TREE) return false;  // no frame for calls
    const char* mangled = assembler_name(fndecl);
    if (std::strstr(mangled, "._omp_fn.") != nullptr || std::strstr(mangled, "._omp_cpyfn.") != nullptr)
        return false;
    // What the runtime would decide for the descriptor (function_resolver.cpp: describe()).
    return !filter || !filter->excluded(strata::filter::demangled_name(mangled), mangled, descriptor_file(fndecl));
}

tree string_constant(const std::string& text, tree type) {
    return fold_convert(type, build_string_literal(text.size() + 1, text.c_str()));
}

/// The static descriptor of `fndecl`, emitted with the translation unit.
tree make_descriptor(tree fndecl, const Trees& t) {
    static unsigned counter = 0;
    const std::string label = "__strata_fn." + std::to_string(counter++);
    tree var =
        build_decl(DECL_SOURCE_LOCATION(fndecl), VAR_DECL, get_identifier(label.c_str()), t.descriptor_type);
    TREE_STATIC(var) = 1;
    TREE_PUBLIC(var) = 0;
    TREE_USED(var) = 1;
    DECL_ARTIFICIAL(var) = 1;
    DECL_IGNORED_P(var) = 1;  // no debug information
    // Our own assembler name: the front end's mangler must not see a name with dots.
    SET_DECL_ASSEMBLER_NAME(var, get_identifier(label.c_str()));

    const std::string file = descriptor_file(fndecl);
    const tree string_type = TREE_TYPE(DECL_CHAIN(DECL_CHAIN(t.handle_field)));
    vec<constructor_elt, va_gc>* values = nullptr;
    tree field = t.handle_field;
    CONSTRUCTOR_APPEND_ELT(values, field, build_int_cst(unsigned_type_node, STRATA_PLUGIN_UNREGISTERED));
    field = DECL_CHAIN(field);
    CONSTRUCTOR_APPEND_ELT(values, field,
                           build_int_cst(unsigned_type_node, file.empty() ? 0 : DECL_SOURCE_LINE(fndecl)));
    field = DECL_CHAIN(field);
    CONSTRUCTOR_APPEND_ELT(values, field, string_constant(assembler_name(fndecl), string_type));
    field = DECL_CHAIN(field);
    CONSTRUCTOR_APPEND_ELT(values, field,
                           string_constant(lang_hooks.decl_printable_name(fndecl, 2), string_type));
    field = DECL_CHAIN(field);
    CONSTRUCTOR_APPEND_ELT(values, field, string_constant(file, string_type));
    DECL_INITIAL(var) = build_constructor(t.descriptor_type, values);
    varpool_node::finalize_decl(var);
    return var;
}

/// `h = d.handle; if (h != FILTERED) fn(&d);` appended to `seq`.  A plain load: the handle is
/// an aligned 32-bit word, written once (0 -> final value) by the runtime, and GCC may merge the
/// exit's load with the entry's when nothing in between can write it, which keeps the two
/// checks consistent.  A relaxed __atomic_load_4 measured 5 more instructions per filtered
/// call (callgrind): GCC then keeps both loads and saves registers for the calls.
void add_checked_call(gimple_seq* seq, tree descriptor, tree fn, const Trees& t) {
    tree handle = create_tmp_var(unsigned_type_node, "strata_handle");
    tree load = build3(COMPONENT_REF, unsigned_type_node, descriptor, t.handle_field, NULL_TREE);
    gimple_seq_add_stmt(seq, gimple_build_assign(handle, load));
    tree call_label = create_artificial_label(UNKNOWN_LOCATION);
    tree done_label = create_artificial_label(UNKNOWN_LOCATION);
    gimple_seq_add_stmt(
        seq, gimple_build_cond(NE_EXPR, handle, build_int_cst(unsigned_type_node, STRATA_PLUGIN_FILTERED),
                               call_label, done_label));
    gimple_seq_add_stmt(seq, gimple_build_label(call_label));
    // An empty volatile asm, so that GCC cannot merge the two tests into one that filtered
    // functions would pay for (it costs no instruction).
    gasm* barrier = gimple_build_asm_vec("", nullptr, nullptr, nullptr, nullptr);
    gimple_asm_set_volatile(barrier, true);
    gimple_seq_add_stmt(seq, barrier);
    // Only on the way to a call, so filtered functions do not pay for it: is the runtime linked?
    tree linked_label = create_artificial_label(UNKNOWN_LOCATION);
    gimple_seq_add_stmt(seq, gimple_build_cond(NE_EXPR, build_fold_addr_expr(fn), null_pointer_node,
                                               linked_label, done_label));
    gimple_seq_add_stmt(seq, gimple_build_label(linked_label));
    gimple_seq_add_stmt(seq, gimple_build_call(fn, 1, build_fold_addr_expr(descriptor)));
    gimple_seq_add_stmt(seq, gimple_build_label(done_label));
}

const pass_data instrument_pass_data = {
    GIMPLE_PASS,
    "strata_instrument",  // name (-fdump-tree-strata_instrument)
    OPTGROUP_NONE,
    TV_NONE,
    PROP_gimple_any,  // properties_required
    0,                // properties_provided
    0,                // properties_destroyed
    0,                // todo_flags_start
    0,                // todo_flags_finish
};

class InstrumentPass : public gimple_opt_pass {
public:
    InstrumentPass(gcc::context* context, const CompileTimeFilter& filter)
        : gimple_opt_pass(instrument_pass_data, context), filter_(filter) {}

    unsigned int execute(function* fun) override {
        tree fndecl = fun->decl;
        gimple_seq body = gimple_body(fndecl);
        // Only bodies in the shape the front end gave them: one GIMPLE_BIND, no CFG yet.
        if (body == nullptr || fun->cfg != nullptr || !gimple_seq_singleton_p(body) ||
            gimple_code(gimple_seq_first_stmt(body)) != GIMPLE_BIND)
            return 0;
        if (!wanted(fndecl, filter_)) return 0;
        if (g_trees.descriptor_type == NULL_TREE) build_trees(g_trees);

        tree descriptor = make_descriptor(fndecl, g_trees);
        gimple_seq cleanup = nullptr;
        add_checked_call(&cleanup, descriptor, g_trees.exit_fn, g_trees);
        gimple_seq wrapped = nullptr;
        add_checked_call(&wrapped, descriptor, g_trees.enter_fn, g_trees);
        gimple_seq_add_stmt(&wrapped, gimple_build_try(body, cleanup, GIMPLE_TRY_FINALLY));
        gbind* outer = gimple_build_bind(NULL_TREE, wrapped, NULL_TREE);
        gimple_set_body(fndecl, gimple_seq_alloc_with_stmt(outer));
        return 0;
    }

private:
    CompileTimeFilter filter_;
};

}  // namespace

const ggc_root_tab* gc_roots() {
    return g_roots;
}

opt_pass* make_instrument_pass(gcc::context* context, const CompileTimeFilter& filter) {
    return new InstrumentPass(context, filter);
}

}  // namespace strata::gcc_plugin
