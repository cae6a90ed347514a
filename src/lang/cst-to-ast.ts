/**
 * The CST visitor that turns chevrotain's concrete syntax tree into the AST of
 * ast.ts. Types and resolutions are left unset here (the checker fills them);
 * the only errors found here are about literals (range, escapes) and more than
 * one `init` in a class, which the grammar cannot express.
 */
import type { CstElement, CstNode, IToken } from 'chevrotain';
import type { BinaryOp, Builtin, ClassDecl, Expr, FieldDecl, FunDecl, Param, Pos, Program, Stmt, TypeRef, VarDecl } from './ast.js';
import { getParser } from './parser.js';
import { decodeString } from './lexer.js';
import { DiagnosticBag, literal, msg } from './diagnostics.js';

/**
 * Placeholder for fields the checker fills (`type`, `local`, ...). ast.ts types
 * them as always present because they are after checking; before, they are not.
 */
const UNSET = undefined as never;

export const builtinNames: ReadonlySet<string> = new Set<Builtin>([
  'print', 'toFloat', 'toInt', 'sqrt', 'clock', 'gc', 'minorGc', 'chr', 'args', 'parseInt',
]);

type Ctx = Record<string, CstElement[] | undefined>;

function tok(ctx: Ctx, key: string, i = 0): IToken {
  return ctx[key]![i] as IToken;
}
function node(ctx: Ctx, key: string, i = 0): CstNode {
  return ctx[key]![i] as CstNode;
}
function nodes(ctx: Ctx, key: string): CstNode[] {
  return (ctx[key] ?? []) as CstNode[];
}
function tokens(ctx: Ctx, key: string): IToken[] {
  return (ctx[key] ?? []) as IToken[];
}
function pos(t: IToken): Pos {
  return { line: t.startLine!, col: t.startColumn! };
}

/** The position where an expression's text starts (its leftmost token). */
export function startPos(e: Expr): Pos {
  switch (e.kind) {
    case 'binary':
      return startPos(e.left);
    case 'assign':
      return startPos(e.target);
    case 'field':
    case 'length':
    case 'invoke':
    case 'stringMethod':
      return startPos(e.object);
    case 'index':
      return startPos(e.array);
    case 'is':
    case 'as':
      return startPos(e.operand);
    default:
      return e.pos;
  }
}

const BaseVisitor = getParser().getBaseCstVisitorConstructor<void, unknown>();

class AstBuilder extends BaseVisitor {
  constructor(readonly file: string, readonly bag: DiagnosticBag) {
    super();
    this.validateVisitor();
  }

  private expr(n: CstNode): Expr {
    return this.visit(n) as Expr;
  }
  private stmt(n: CstNode): Stmt {
    return this.visit(n) as Stmt;
  }
  private typeRef(n: CstNode): TypeRef {
    return this.visit(n) as TypeRef;
  }

  // ------------------------------------------------------------ declarations

  program(ctx: Ctx): Program {
    const body = nodes(ctx, 'statement').map((n) => this.stmt(n));
    const globals: VarDecl[] = [];
    for (const s of body) if (s.kind === 'var') globals.push(s.decl);
    return {
      file: this.file,
      classes: nodes(ctx, 'classDecl').map((n) => this.visit(n) as ClassDecl),
      functions: nodes(ctx, 'funDecl').map((n) => this.visit(n) as FunDecl),
      globals,
      body,
    };
  }

  classDecl(ctx: Ctx): ClassDecl {
    const nameTok = tok(ctx, 'Identifier');
    const inits = nodes(ctx, 'initDecl').map((n) => this.visit(n) as FunDecl);
    for (const extra of inits.slice(1)) this.bag.error(extra.pos, msg.duplicateInit(nameTok.image));
    const fields = nodes(ctx, 'fieldDecl').map((n) => this.visit(n) as FieldDecl);
    const cls: ClassDecl = {
      name: nameTok.image,
      pos: pos(nameTok),
      superName: ctx['superName'] ? tok(ctx, 'superName').image : undefined,
      superclass: undefined,
      fields,
      methods: nodes(ctx, 'funDecl').map((n) => this.visit(n) as FunDecl),
      init: inits[0],
      allFields: [],
      vtable: [],
      ctor: undefined,
      id: -1,
    };
    for (const f of cls.fields) f.owner = cls;
    for (const m of cls.methods) m.owner = cls;
    if (cls.init) cls.init.owner = cls;
    return cls;
  }

  fieldDecl(ctx: Ctx): FieldDecl {
    const nameTok = tok(ctx, 'Identifier');
    if (ctx['Assign']) this.bag.error(pos(tok(ctx, 'Assign')), msg.fieldInitializer());
    return { name: nameTok.image, pos: pos(nameTok), typeRef: this.typeRef(node(ctx, 'type')), type: UNSET, owner: UNSET, index: -1 };
  }

  initDecl(ctx: Ctx): FunDecl {
    return this.makeFun('init', pos(tok(ctx, 'Init')), ctx, undefined);
  }

  funDecl(ctx: Ctx): FunDecl {
    const nameTok = tok(ctx, 'Identifier');
    return this.makeFun(nameTok.image, pos(nameTok), ctx, ctx['type'] ? this.typeRef(node(ctx, 'type')) : undefined);
  }

  private makeFun(name: string, at: Pos, ctx: Ctx, returnTypeRef: TypeRef | undefined): FunDecl {
    const params = ctx['params'] ? (this.visit(node(ctx, 'params')) as Param[]) : [];
    const blockStmt = this.stmt(node(ctx, 'block'));
    const body = blockStmt.kind === 'block' ? blockStmt.body : [blockStmt];
    return { name, pos: at, params, returnTypeRef, returnType: UNSET, body, owner: undefined, slot: -1, locals: [] };
  }

  params(ctx: Ctx): Param[] {
    return nodes(ctx, 'param').map((n) => this.visit(n) as Param);
  }

  param(ctx: Ctx): Param {
    const nameTok = tok(ctx, 'Identifier');
    return { name: nameTok.image, pos: pos(nameTok), typeRef: this.typeRef(node(ctx, 'type')), type: UNSET, local: UNSET };
  }

  type(ctx: Ctx): TypeRef {
    const nameTok = tok(ctx, 'TypeName');
    const at = pos(nameTok);
    return arrayOf({ kind: 'named', name: nameTok.image, pos: at }, tokens(ctx, 'LBracket').length);
  }

  // ------------------------------------------------------------ statements

  statement(ctx: Ctx): Stmt {
    const key = Object.keys(ctx).find((k) => ctx[k]!.length > 0)!;
    return this.stmt(node(ctx, key));
  }

  block(ctx: Ctx): Stmt {
    return { kind: 'block', pos: pos(tok(ctx, 'LBrace')), body: nodes(ctx, 'statement').map((n) => this.stmt(n)) };
  }

  varStmt(ctx: Ctx): Stmt {
    const nameTok = tok(ctx, 'Identifier');
    const decl: VarDecl = {
      name: nameTok.image,
      pos: pos(nameTok),
      typeRef: ctx['type'] ? this.typeRef(node(ctx, 'type')) : undefined,
      init: ctx['expression'] ? this.expr(node(ctx, 'expression')) : undefined,
      type: UNSET,
      global: undefined,
      local: undefined,
    };
    return { kind: 'var', pos: pos(tok(ctx, 'Var')), decl };
  }

  ifStmt(ctx: Ctx): Stmt {
    return {
      kind: 'if',
      pos: pos(tok(ctx, 'If')),
      cond: this.expr(node(ctx, 'expression')),
      then: this.stmt(node(ctx, 'then')),
      else: ctx['else'] ? this.stmt(node(ctx, 'else')) : undefined,
    };
  }

  whileStmt(ctx: Ctx): Stmt {
    return { kind: 'while', pos: pos(tok(ctx, 'While')), cond: this.expr(node(ctx, 'expression')), body: this.stmt(node(ctx, 'statement')) };
  }

  forStmt(ctx: Ctx): Stmt {
    const initNode = ctx['varStmt'] ? node(ctx, 'varStmt') : ctx['exprStmt'] ? node(ctx, 'exprStmt') : undefined;
    return {
      kind: 'for',
      pos: pos(tok(ctx, 'For')),
      init: initNode ? this.stmt(initNode) : undefined,
      cond: ctx['cond'] ? this.expr(node(ctx, 'cond')) : undefined,
      update: ctx['update'] ? this.expr(node(ctx, 'update')) : undefined,
      body: this.stmt(node(ctx, 'statement')),
    };
  }

  breakStmt(ctx: Ctx): Stmt {
    return { kind: 'break', pos: pos(tok(ctx, 'Break')) };
  }

  continueStmt(ctx: Ctx): Stmt {
    return { kind: 'continue', pos: pos(tok(ctx, 'Continue')) };
  }

  returnStmt(ctx: Ctx): Stmt {
    return { kind: 'return', pos: pos(tok(ctx, 'Return')), value: ctx['expression'] ? this.expr(node(ctx, 'expression')) : undefined };
  }

  exprStmt(ctx: Ctx): Stmt {
    const expr = this.expr(node(ctx, 'expression'));
    return { kind: 'expr', pos: startPos(expr), expr };
  }

  // ------------------------------------------------------------ expressions

  expression(ctx: Ctx): Expr {
    const target = this.expr(node(ctx, 'orExpr'));
    if (!ctx['Assign']) return target;
    return { kind: 'assign', pos: pos(tok(ctx, 'Assign')), target, value: this.expr(node(ctx, 'expression')), type: UNSET };
  }

  /** Left-associative chain of `operands` joined by `ops`. */
  private chain(ctx: Ctx): Expr {
    const operands = nodes(ctx, 'operands');
    const ops = tokens(ctx, 'ops');
    let left = this.expr(operands[0]!);
    ops.forEach((op, i) => {
      const right = this.expr(operands[i + 1]!);
      left = { kind: 'binary', pos: pos(op), op: op.image as BinaryOp, left, right, type: UNSET };
    });
    return left;
  }

  orExpr(ctx: Ctx): Expr { return this.chain(ctx); }
  andExpr(ctx: Ctx): Expr { return this.chain(ctx); }
  equality(ctx: Ctx): Expr { return this.chain(ctx); }
  bitOr(ctx: Ctx): Expr { return this.chain(ctx); }
  bitXor(ctx: Ctx): Expr { return this.chain(ctx); }
  bitAnd(ctx: Ctx): Expr { return this.chain(ctx); }
  shift(ctx: Ctx): Expr { return this.chain(ctx); }
  additive(ctx: Ctx): Expr { return this.chain(ctx); }
  multiplicative(ctx: Ctx): Expr { return this.chain(ctx); }

  comparison(ctx: Ctx): Expr {
    let left = this.expr(node(ctx, 'bitOr'));
    for (const tail of nodes(ctx, 'comparisonTail')) {
      const t = tail.children as Ctx;
      if (t['Is']) {
        left = { kind: 'is', pos: pos(tok(t, 'Is')), operand: left, targetRef: this.typeRef(node(t, 'type')), target: UNSET, type: UNSET };
      } else {
        const op = tok(t, 'RelationalOp');
        left = { kind: 'binary', pos: pos(op), op: op.image as BinaryOp, left, right: this.expr(node(t, 'bitOr')), type: UNSET };
      }
    }
    return left;
  }

  comparisonTail(): never {
    throw new Error('comparisonTail is visited by comparison');
  }

  unary(ctx: Ctx): Expr {
    if (!ctx['UnaryOp']) return this.expr(node(ctx, 'postfix'));
    const op = tok(ctx, 'UnaryOp');
    const operandNode = node(ctx, 'unary');
    // `-2147483648` is the one literal whose digits alone do not fit in an int.
    if (op.image === '-' && bareIntLiteral(operandNode) === '2147483648') {
      return { kind: 'int', pos: pos(op), value: -2147483648, type: UNSET };
    }
    return { kind: 'unary', pos: pos(op), op: op.image as '-' | '!' | '~', operand: this.expr(operandNode), type: UNSET };
  }

  postfix(ctx: Ctx): Expr {
    let e = this.expr(node(ctx, 'primary'));
    for (const opNode of nodes(ctx, 'postfixOp')) {
      const c = opNode.children as Ctx;
      if (c['Dot']) {
        const nameTok = tok(c, 'Identifier');
        if (c['args']) {
          const args = this.visit(node(c, 'args')) as Expr[];
          e = { kind: 'invoke', pos: pos(nameTok), object: e, name: nameTok.image, args, method: undefined, type: UNSET };
        } else {
          e = { kind: 'field', pos: pos(nameTok), object: e, name: nameTok.image, field: undefined, type: UNSET };
        }
      } else if (c['LBracket']) {
        e = { kind: 'index', pos: pos(tok(c, 'LBracket')), array: e, index: this.expr(node(c, 'expression')), type: UNSET };
      } else {
        e = { kind: 'as', pos: pos(tok(c, 'As')), operand: e, targetRef: this.typeRef(node(c, 'type')), target: UNSET, type: UNSET };
      }
    }
    return e;
  }

  postfixOp(): never {
    throw new Error('postfixOp is visited by postfix');
  }

  primary(ctx: Ctx): Expr {
    if (ctx['IntLiteral']) {
      const t = tok(ctx, 'IntLiteral');
      let value = Number(t.image);
      if (value > 2147483647) {
        this.bag.error(pos(t), literal.intTooLarge(t.image));
        value = 0;
      }
      return { kind: 'int', pos: pos(t), value, type: UNSET };
    }
    if (ctx['HexLiteral']) {
      const t = tok(ctx, 'HexLiteral');
      let value = parseInt(t.image.slice(2), 16);
      if (value > 0xffffffff) {
        this.bag.error(pos(t), literal.intTooLarge(t.image));
        value = 0;
      }
      // Hex literals are bit patterns: 0xFFFFFFFF is -1, as in Java.
      return { kind: 'int', pos: pos(t), value: value | 0, type: UNSET };
    }
    if (ctx['FloatLiteral']) {
      const t = tok(ctx, 'FloatLiteral');
      return { kind: 'float', pos: pos(t), value: Number(t.image), type: UNSET };
    }
    if (ctx['StringLiteral']) {
      const t = tok(ctx, 'StringLiteral');
      const value = decodeString(t.image, (offset, message) =>
        this.bag.error({ line: t.startLine!, col: t.startColumn! + offset }, message),
      );
      return { kind: 'string', pos: pos(t), value, type: UNSET };
    }
    if (ctx['True']) return { kind: 'bool', pos: pos(tok(ctx, 'True')), value: true, type: UNSET };
    if (ctx['False']) return { kind: 'bool', pos: pos(tok(ctx, 'False')), value: false, type: UNSET };
    if (ctx['Null']) return { kind: 'null', pos: pos(tok(ctx, 'Null')), type: UNSET };
    if (ctx['This']) return { kind: 'this', pos: pos(tok(ctx, 'This')), type: UNSET };
    if (ctx['superCall']) return this.expr(node(ctx, 'superCall'));
    if (ctx['newExpr']) return this.expr(node(ctx, 'newExpr'));
    if (ctx['expression']) return this.expr(node(ctx, 'expression'));
    const nameTok = tok(ctx, 'Identifier');
    const name = nameTok.image;
    if (!ctx['args']) return { kind: 'name', pos: pos(nameTok), name, local: undefined, global: undefined, type: UNSET };
    const args = this.visit(node(ctx, 'args')) as Expr[];
    if (builtinNames.has(name)) return { kind: 'builtin', pos: pos(nameTok), name: name as Builtin, args, type: UNSET };
    return { kind: 'call', pos: pos(nameTok), name, args, fun: undefined, type: UNSET };
  }

  superCall(ctx: Ctx): Expr {
    const name = ctx['Init'] ? 'init' : tok(ctx, 'Identifier').image;
    const args = this.visit(node(ctx, 'args')) as Expr[];
    return { kind: 'superInvoke', pos: pos(tok(ctx, 'Super')), name, args, method: undefined, type: UNSET };
  }

  newExpr(ctx: Ctx): Expr {
    const at = pos(tok(ctx, 'New'));
    const typeTok = tok(ctx, 'TypeName');
    if (ctx['args']) {
      const args = this.visit(node(ctx, 'args')) as Expr[];
      return { kind: 'new', pos: at, className: typeTok.image, args, cls: undefined, type: UNSET };
    }
    const elemRef = arrayOf({ kind: 'named', name: typeTok.image, pos: pos(typeTok) }, tokens(ctx, 'dim').length);
    return { kind: 'newArray', pos: at, elemRef, length: this.expr(node(ctx, 'expression')), type: UNSET };
  }

  args(ctx: Ctx): Expr[] {
    return nodes(ctx, 'expression').map((n) => this.expr(n));
  }
}

/** `ref` wrapped in `dims` array types (one per `[]`), each at the position of `ref`. */
function arrayOf(ref: TypeRef, dims: number): TypeRef {
  for (let i = 0; i < dims; i++) ref = { kind: 'array', elem: ref, pos: ref.pos };
  return ref;
}

/** The digits of `n` if the unary node is just a decimal literal (no postfix, no parentheses). */
function bareIntLiteral(n: CstNode): string | undefined {
  const postfix = (n.children as Ctx)['postfix']?.[0] as CstNode | undefined;
  if (!postfix || (postfix.children as Ctx)['postfixOp']) return undefined;
  const primary = (postfix.children as Ctx)['primary']![0] as CstNode;
  const lit = (primary.children as Ctx)['IntLiteral']?.[0] as IToken | undefined;
  return lit ? String(Number(lit.image)) : undefined;
}

/** Builds the AST of a syntactically valid CST; literal errors go to `bag`. */
export function buildAst(cst: CstNode, file: string, bag: DiagnosticBag): Program {
  return new AstBuilder(file, bag).visit(cst) as Program;
}
