//! The walks over the code: `register`'s `on(...)` calls, a hook's `$` calls, and the
//! sweep of every function for what a mod may not use.

use super::analysis::{
    hook_fn, literal_name, literal_string, made_by, render_object, scan_dollar, scan_on, Ctx,
    FnRef, Out,
};
use super::{CallSite, HookSite, NameSite, Rule, TARGET_TIERS};
use oxc::ast::ast::{
    Argument, ArrowFunctionExpression, BindingIdentifier, CallExpression, ComputedMemberExpression,
    Expression, Function, IdentifierReference, StaticMemberExpression, TSInterfaceDeclaration,
    TSType, TSTypeAliasDeclaration, TSTypeParameterDeclaration, TSTypeParameterInstantiation,
    VariableDeclarator,
};
use oxc::ast_visit::{walk, Visit};
use oxc::span::{GetSpan, Span};
use oxc::syntax::scope::ScopeFlags;
use std::collections::{HashMap, HashSet};

/// Skips what TypeScript types hold (no `$` or `on` there is a value).
macro_rules! skip_types {
    () => {
        fn visit_ts_type(&mut self, _it: &TSType<'a>) {}
        fn visit_ts_type_parameter_instantiation(
            &mut self,
            _it: &TSTypeParameterInstantiation<'a>,
        ) {
        }
        fn visit_ts_type_parameter_declaration(&mut self, _it: &TSTypeParameterDeclaration<'a>) {}
        fn visit_ts_type_alias_declaration(&mut self, _it: &TSTypeAliasDeclaration<'a>) {}
        fn visit_ts_interface_declaration(&mut self, _it: &TSInterfaceDeclaration<'a>) {}
    };
}

/// `register`'s body (or a helper's it handed `on` to): the `on(...)` calls.
pub(super) struct OnScan<'c, 'r, 'a> {
    pub(super) ctx: &'c Ctx<'r, 'a>,
    pub(super) out: &'c mut Out,
    pub(super) on: &'r str,
    pub(super) via: Option<String>,
    /// Functions callable by name here: the body's own, then the file's.
    pub(super) locals: HashMap<&'r str, FnRef<'r, 'a>>,
    /// Variables holding a registration (`const r = on(...)`).
    pub(super) regs: HashSet<String>,
}

impl<'a> OnScan<'_, '_, 'a> {
    fn handle_on(&mut self, call: &CallExpression<'a>) {
        let at = self.ctx.at(call.span);
        let args: Vec<&Argument<'a>> = call.arguments.iter().collect();
        let Some(first) = args.first() else {
            self.out.problem(
                Rule::EventNotLiteral,
                at,
                "the event name passed to on() is not a string literal".to_owned(),
            );
            return;
        };
        let event = first.as_expression().and_then(literal_string);
        let Some(event) = event else {
            self.out.problem(
                Rule::EventNotLiteral,
                self.ctx.at(first.span()),
                "the event name passed to on() is not a string literal".to_owned(),
            );
            return;
        };
        let shown = fnhooks::escaped(&event);
        let (filter_arg, hook_arg) = match args.len() {
            0 | 1 => (None, None),
            2 => (None, args.get(1).copied()),
            _ => (args.get(1).copied(), args.get(2).copied()),
        };
        let filter = filter_arg.map(|a| {
            match a.as_expression().map(Expression::get_inner_expression) {
                Some(Expression::ObjectExpression(o)) => render_object(self.ctx, o),
                _ => {
                    self.out.problem(
                        Rule::FilterNotLiteral,
                        self.ctx.at(a.span()),
                        format!("the filter passed to on(\"{shown}\") is not an object literal, so it is not shown"),
                    );
                    "{…}".to_owned()
                }
            }
        });
        match hook_arg.and_then(Argument::as_expression) {
            None => self.out.problem(
                Rule::HookNotFunction,
                hook_arg.map_or(at, |a| self.ctx.at(a.span())),
                format!("on(\"{shown}\"): the hook is not a function"),
            ),
            Some(e) => {
                let made = made_by(&self.locals, e);
                if let Some(f) = hook_fn(&self.locals, e) {
                    scan_dollar(self.ctx, self.out, f, 0, Some(2), None);
                } else if !made.is_empty() {
                    for f in made {
                        scan_dollar(self.ctx, self.out, f, 0, Some(2), None);
                    }
                } else if matches!(
                    e.get_inner_expression(),
                    Expression::ObjectExpression(_)
                        | Expression::ArrayExpression(_)
                        | Expression::StringLiteral(_)
                        | Expression::TemplateLiteral(_)
                        | Expression::NumericLiteral(_)
                        | Expression::BooleanLiteral(_)
                        | Expression::NullLiteral(_)
                        | Expression::RegExpLiteral(_)
                ) {
                    self.out.problem(
                        Rule::HookNotFunction,
                        self.ctx.at(e.span()),
                        format!("on(\"{shown}\"): the hook is not a function"),
                    );
                } else {
                    self.out.problem(
                        Rule::HookOpaque,
                        self.ctx.at(e.span()),
                        format!("the hook passed to on(\"{shown}\") is not a function written in this file; its $ calls are not listed"),
                    );
                }
            }
        }
        self.out.report.hooks.push(HookSite {
            event,
            filter,
            line: at.0,
            column: at.1,
            via: self.via.clone(),
        });
    }

    fn is_registration(&self, e: &Expression<'a>) -> bool {
        match e.get_inner_expression() {
            Expression::CallExpression(c) => {
                c.callee.is_specific_id(self.on)
                    || matches!(c.callee.get_inner_expression(),
                        Expression::StaticMemberExpression(m)
                            if m.property.name == "catch" && self.is_registration(&m.object))
            }
            Expression::Identifier(id) => self.regs.contains(id.name.as_str()),
            _ => false,
        }
    }
}

impl<'a> Visit<'a> for OnScan<'_, '_, 'a> {
    skip_types!();

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let callee = it.callee.get_inner_expression();
        if let Expression::Identifier(id) = callee {
            if id.name == self.on {
                self.handle_on(it);
                self.visit_arguments(&it.arguments);
                return;
            }
            let helper = self.locals.get(id.name.as_str()).copied();
            if let Some(f) = helper {
                for (i, arg) in it.arguments.iter().enumerate() {
                    if arg
                        .as_expression()
                        .is_some_and(|e| e.is_specific_id(self.on))
                    {
                        scan_on(self.ctx, self.out, f, i, Some(id.name.as_str()));
                    } else {
                        self.visit_argument(arg);
                    }
                }
                return;
            }
        }
        // `on(...).catch(handler)`, `registration.catch(handler)`: a hook too.
        if let Expression::StaticMemberExpression(m) = callee {
            if m.property.name == "catch" && self.is_registration(&m.object) {
                if let Some(f) = it
                    .arguments
                    .first()
                    .and_then(Argument::as_expression)
                    .and_then(|e| hook_fn(&self.locals, e))
                {
                    scan_dollar(self.ctx, self.out, f, 0, Some(2), None);
                }
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (Some(id), Some(init)) = (it.id.kind.get_binding_identifier(), &it.init) {
            if self.is_registration(init) {
                self.regs.insert(id.name.to_string());
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        if it.name == self.on {
            self.out.problem(
                Rule::OnShadowed,
                self.ctx.at(it.span),
                format!(
                    "\"{}\" is declared again (shadowed)",
                    fnhooks::escaped(self.on)
                ),
            );
        }
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if it.name == self.on {
            self.out.problem(
                Rule::OnEscapes,
                self.ctx.at(it.span),
                format!(
                    "\"{}\" is stored or passed where the analysis does not follow; the hooks it registers there are not listed",
                    fnhooks::escaped(self.on)
                ),
            );
        }
    }
}

/// A hook's (or a helper's) body: the `$` calls.
pub(super) struct DollarScan<'c, 'r, 'a> {
    pub(super) ctx: &'c Ctx<'r, 'a>,
    pub(super) out: &'c mut Out,
    pub(super) dollar: &'c str,
    pub(super) next: Option<&'c str>,
    pub(super) via: Option<String>,
}

impl<'a> DollarScan<'_, '_, 'a> {
    fn value(&mut self, span: Span, what: &str) {
        self.out.problem(
            Rule::DollarValue,
            self.ctx.at(span),
            format!("{what} is used as a value"),
        );
    }

    /// `(noun, method)` when `callee` is `$.<noun>.<method>`.
    fn dollar_path<'e>(&self, callee: &'e Expression<'a>) -> Option<(&'e str, &'e str)> {
        let Expression::StaticMemberExpression(m) = callee else {
            return None;
        };
        let Expression::StaticMemberExpression(n) = m.object.get_inner_expression() else {
            return None;
        };
        n.object
            .is_specific_id(self.dollar)
            .then(|| (n.property.name.as_str(), m.property.name.as_str()))
    }

    fn record(&mut self, noun: &str, method: &str, call: &CallExpression<'a>) {
        let (line, column) = self.ctx.at(call.span);
        let name = format!("{noun}.{method}");
        self.out.report.calls.push(CallSite {
            call: name.clone(),
            line,
            column,
            via: self.via.clone(),
        });
        let kind = match (noun, method) {
            ("env", "get") => Some((true, false)),
            ("env", "set") => Some((true, true)),
            ("state", "get") => Some((false, false)),
            ("state", "set") => Some((false, true)),
            _ => None,
        };
        let Some((env, write)) = kind else {
            return;
        };
        let arg = call.arguments.first();
        match literal_name(arg) {
            Some(n) => {
                let site = NameSite {
                    name: n,
                    line,
                    column,
                    via: self.via.clone(),
                };
                let r = &mut self.out.report;
                match (env, write) {
                    (true, false) => r.env_reads.push(site),
                    (true, true) => r.env_writes.push(site),
                    (false, false) => r.state_reads.push(site),
                    (false, true) => r.state_writes.push(site),
                }
            }
            None => {
                let at = arg.map_or((line, column), |a| self.ctx.at(a.span()));
                if env {
                    self.out.problem(
                        Rule::EnvNameNotLiteral,
                        at,
                        format!("$.env.{method} names a variable that is not a string literal"),
                    );
                } else {
                    self.out.problem(
                        Rule::StateKeyNotLiteral,
                        at,
                        format!("$.state.{method} names a key that is not a string literal"),
                    );
                }
            }
        }
    }

    fn check_next_to(&mut self, call: &CallExpression<'a>) {
        let tier_arg = call.arguments.get(1);
        match tier_arg.and_then(Argument::as_expression).and_then(literal_string) {
            Some(tier) if TARGET_TIERS.contains(&tier.as_str()) => {}
            Some(tier) => self.out.problem(
                Rule::NextToTier,
                tier_arg.map_or(self.ctx.at(call.span), |a| self.ctx.at(a.span())),
                format!(
                    "next.to(e, \"{}\"): the tier is not one next.to can name (append, builtin, core)",
                    fnhooks::escaped(&tier)
                ),
            ),
            None => self.out.problem(
                Rule::NextToTier,
                tier_arg.map_or(self.ctx.at(call.span), |a| self.ctx.at(a.span())),
                "next.to(e, <tier>) names a tier that is not a string literal".to_owned(),
            ),
        }
    }

    /// A nested function that binds the same name as `$` (a `.catch` handler written
    /// inside a hook) is covered by this scan.
    fn cover(&mut self, f: FnRef<'_, 'a>) {
        for i in 0..f.params().items.len() {
            if let Ok(Some((name, _))) = f.param_name(i) {
                if name == self.dollar {
                    self.out.dollar_done.insert((f.span().start, i));
                }
            }
        }
    }
}

impl<'a> Visit<'a> for DollarScan<'_, '_, 'a> {
    skip_types!();

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.cover(FnRef::Func(it));
        walk::walk_function(self, it, flags);
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.cover(FnRef::Arrow(it));
        walk::walk_arrow_function_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let callee = it.callee.get_inner_expression();
        if let Some((noun, method)) = self.dollar_path(callee) {
            self.record(noun, method, it);
            self.visit_arguments(&it.arguments);
            return;
        }
        if let (Some(next), Expression::StaticMemberExpression(m)) = (self.next, callee) {
            if m.property.name == "to" && m.object.is_specific_id(next) {
                self.check_next_to(it);
            }
        }
        if let Expression::Identifier(id) = callee {
            if let Some(f) = self.ctx.fns.get(id.name.as_str()).copied() {
                for (i, arg) in it.arguments.iter().enumerate() {
                    if arg
                        .as_expression()
                        .is_some_and(|e| e.is_specific_id(self.dollar))
                    {
                        scan_dollar(self.ctx, self.out, f, i, None, Some(id.name.as_str()));
                    } else {
                        self.visit_argument(arg);
                    }
                }
                return;
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        let object = it.object.get_inner_expression();
        if let Expression::StaticMemberExpression(n) = object {
            if n.object.is_specific_id(self.dollar) {
                let (noun, prop) = (n.property.name.as_str(), it.property.name.as_str());
                // `$.plugin.name` and `$.plugin.root` are values (reference §4).
                if !(noun == "plugin" && matches!(prop, "name" | "root")) {
                    self.value(
                        it.span,
                        &format!("$.{}.{}", fnhooks::escaped(noun), fnhooks::escaped(prop)),
                    );
                }
                return;
            }
        }
        if object.is_specific_id(self.dollar) {
            self.value(
                it.span,
                &format!("$.{}", fnhooks::escaped(it.property.name.as_str())),
            );
            return;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_computed_member_expression(&mut self, it: &ComputedMemberExpression<'a>) {
        let object = it.object.get_inner_expression();
        if object.is_specific_id(self.dollar) {
            self.value(it.span, "$");
            self.visit_expression(&it.expression);
            return;
        }
        if let Expression::StaticMemberExpression(n) = object {
            if n.object.is_specific_id(self.dollar) {
                self.value(
                    it.span,
                    &format!("$.{}", fnhooks::escaped(n.property.name.as_str())),
                );
                self.visit_expression(&it.expression);
                return;
            }
        }
        walk::walk_computed_member_expression(self, it);
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if it.name == self.dollar {
            self.value(it.span, "$");
        }
    }
}

/// The whole file: functions with a parameter spelled `$` not analysed yet, and
/// `process.env`.
pub(super) struct Sweep<'c, 'r, 'a> {
    pub(super) ctx: &'c Ctx<'r, 'a>,
    pub(super) out: &'c mut Out,
}

impl<'a> Sweep<'_, '_, 'a> {
    fn dollar_params(&mut self, f: FnRef<'_, 'a>) {
        let via = self.ctx.top_level_name(f.span());
        for i in 0..f.params().items.len() {
            if let Ok(Some(("$", _))) = f.param_name(i) {
                scan_dollar(self.ctx, self.out, f, i, None, via.as_deref());
            }
        }
    }
}

impl<'a> Visit<'a> for Sweep<'_, '_, 'a> {
    skip_types!();

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.dollar_params(FnRef::Func(it));
        walk::walk_function(self, it, flags);
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.dollar_params(FnRef::Arrow(it));
        walk::walk_arrow_function_expression(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if it.property.name == "env" && it.object.is_specific_id("process") {
            self.out.problem(
                Rule::ProcessEnv,
                self.ctx.at(it.span),
                "process.env is not available in a mod (no Node): read variables with $.env.get(\"NAME\")".to_owned(),
            );
        }
        walk::walk_static_member_expression(self, it);
    }
}
