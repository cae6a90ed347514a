/**
 * Type checking of expressions. `checkExpr` returns the checked node: a new
 * object with `type` and its resolution fields filled, and sometimes a different
 * kind than the parser produced (`o.length` becomes `length`, `s.charAt(i)`
 * becomes `stringMethod`), which is why checking returns nodes instead of
 * mutating them.
 */
import { isRefType, typeName } from './ast.js';
import type { Builtin, Expr, FunDecl, Type } from './ast.js';
import { startPos } from './cst-to-ast.js';
import { msg } from './diagnostics.js';
import {
  BOOL, ERR, FLOAT, INT, NULL, STRING, VOID,
  isAssignable, isCastTarget, isComparable, isErr, isNumeric,
} from './check-env.js';
import type { Env, FnCtx } from './check-env.js';

const builtinSignatures: Record<Exclude<Builtin, 'print'>, { params: Type[]; ret: Type }> = {
  toFloat: { params: [INT], ret: FLOAT },
  toInt: { params: [FLOAT], ret: INT },
  sqrt: { params: [FLOAT], ret: FLOAT },
  clock: { params: [], ret: FLOAT },
  gc: { params: [], ret: VOID },
  minorGc: { params: [], ret: VOID },
  chr: { params: [INT], ret: STRING },
  args: { params: [], ret: { kind: 'array', elem: STRING } },
  parseInt: { params: [STRING], ret: INT },
};

const stringMethods: Record<'charAt' | 'substring', { params: Type[]; ret: Type }> = {
  charAt: { params: [INT], ret: INT },
  substring: { params: [INT, INT], ret: STRING },
};

/** Checks an expression used for its value: a void call is an error here. */
export function checkValue(env: Env, cx: FnCtx, e: Expr): Expr {
  const r = checkExpr(env, cx, e);
  if (r.type.kind === 'void' && !isErr(r.type)) {
    env.bag.error(startPos(r), msg.voidValue());
    return { ...r, type: ERR };
  }
  return r;
}

/** Checks a condition, which must be bool. */
export function checkCond(env: Env, cx: FnCtx, e: Expr): Expr {
  const r = checkValue(env, cx, e);
  if (!isErr(r.type) && r.type.kind !== 'bool') env.bag.error(startPos(r), msg.conditionNotBool(typeName(r.type)));
  return r;
}

/** Reports `message` at the value if `value` cannot be stored as `to`. */
export function expectAssignable(env: Env, value: Expr, to: Type, message: (from: string, to: string) => string): void {
  if (!isAssignable(value.type, to)) env.bag.error(startPos(value), message(typeName(value.type), typeName(to)));
}

function checkArgs(env: Env, cx: FnCtx, callee: string, params: Type[] | undefined, args: Expr[], at: Expr['pos']): Expr[] {
  const checked = args.map((a) => checkValue(env, cx, a));
  if (!params) return checked; // callee unknown: already reported
  if (params.length !== args.length) {
    env.bag.error(at, msg.arity(callee, params.length, args.length));
    return checked;
  }
  checked.forEach((a, i) => {
    if (!isAssignable(a.type, params[i]!)) {
      env.bag.error(startPos(a), msg.badArgument(i + 1, callee, typeName(params[i]!), typeName(a.type)));
    }
  });
  return checked;
}

function paramTypes(f: FunDecl): Type[] {
  return f.params.map((p) => p.type);
}

export function checkExpr(env: Env, cx: FnCtx, e: Expr): Expr {
  const bag = env.bag;
  switch (e.kind) {
    case 'int':
      return { ...e, type: INT };
    case 'float':
      return { ...e, type: FLOAT };
    case 'bool':
      return { ...e, type: BOOL };
    case 'string':
      return { ...e, type: STRING };
    case 'null':
      return { ...e, type: NULL };

    case 'this':
      if (!cx.cls) {
        bag.error(e.pos, msg.thisOutsideMethod());
        return { ...e, type: ERR };
      }
      return { ...e, type: { kind: 'class', cls: cx.cls } };

    case 'name': {
      const local = cx.frame.lookup(e.name);
      if (local) return { ...e, local, global: undefined, type: local.type };
      const g = env.globals.get(e.name);
      if (g) return { ...e, local: undefined, global: g.global, type: g.type };
      bag.error(e.pos, env.allGlobalNames.has(e.name) ? msg.usedBeforeDeclaration(e.name) : msg.unknownName(e.name));
      return { ...e, type: ERR };
    }

    case 'assign': {
      const target = checkExpr(env, cx, e.target);
      const value = checkValue(env, cx, e.value);
      if (target.kind === 'length') {
        bag.error(target.pos, msg.assignToLength());
      } else if (target.kind !== 'name' && target.kind !== 'field' && target.kind !== 'index') {
        if (!isErr(target.type)) bag.error(startPos(target), msg.invalidAssignTarget());
      } else {
        expectAssignable(env, value, target.type, msg.cannotAssign);
      }
      return { ...e, target, value, type: target.kind === 'length' ? ERR : target.type };
    }

    case 'binary':
      return checkBinary(env, cx, e);

    case 'unary': {
      const operand = checkValue(env, cx, e.operand);
      const t = operand.type;
      if (isErr(t)) return { ...e, operand, type: e.op === '!' ? BOOL : ERR };
      if (e.op === '-' && isNumeric(t)) return { ...e, operand, type: t };
      if (e.op === '!' && t.kind === 'bool') return { ...e, operand, type: BOOL };
      if (e.op === '~' && t.kind === 'int') return { ...e, operand, type: INT };
      const expected = e.op === '-' ? 'a number' : e.op === '!' ? 'bool' : 'int';
      bag.error(e.pos, msg.unaryOperand(e.op, expected, typeName(t)));
      return { ...e, operand, type: ERR };
    }

    case 'field': {
      const object = checkValue(env, cx, e.object);
      const t = object.type;
      if (isErr(t)) return { ...e, object, type: ERR };
      if ((t.kind === 'array' || t.kind === 'string') && e.name === 'length') {
        return { kind: 'length', pos: e.pos, object, type: INT };
      }
      if (t.kind === 'class') {
        const field = t.cls.allFields.find((f) => f.name === e.name);
        if (field) return { ...e, object, field, type: field.type };
        bag.error(e.pos, msg.noField(`class '${t.cls.name}'`, e.name));
      } else {
        bag.error(e.pos, msg.noField(typeName(t), e.name));
      }
      return { ...e, object, type: ERR };
    }

    case 'index': {
      const array = checkValue(env, cx, e.array);
      const index = checkValue(env, cx, e.index);
      if (!isErr(index.type) && index.type.kind !== 'int') bag.error(startPos(index), msg.indexNotInt(typeName(index.type)));
      if (array.type.kind === 'array') return { ...e, array, index, type: array.type.elem };
      if (!isErr(array.type)) bag.error(e.pos, msg.notIndexable(typeName(array.type)));
      return { ...e, array, index, type: ERR };
    }

    case 'call': {
      const fun = env.functions.get(e.name);
      if (!fun) bag.error(e.pos, msg.unknownFunction(e.name));
      const args = checkArgs(env, cx, e.name, fun && paramTypes(fun), e.args, e.pos);
      return { ...e, args, fun, type: fun ? fun.returnType : ERR };
    }

    case 'builtin': {
      if (e.name === 'print') {
        const args = e.args.map((a) => checkExpr(env, cx, a));
        if (args.length !== 1) bag.error(e.pos, msg.arity('print', 1, args.length));
        else if (args[0]!.type.kind === 'void' && !isErr(args[0]!.type)) bag.error(startPos(args[0]!), msg.printVoid());
        return { ...e, args, type: VOID };
      }
      const sig = builtinSignatures[e.name];
      return { ...e, args: checkArgs(env, cx, e.name, sig.params, e.args, e.pos), type: sig.ret };
    }

    case 'invoke': {
      const object = checkValue(env, cx, e.object);
      const t = object.type;
      if (t.kind === 'string' && (e.name === 'charAt' || e.name === 'substring')) {
        const sig = stringMethods[e.name];
        const args = checkArgs(env, cx, e.name, sig.params, e.args, e.pos);
        return { kind: 'stringMethod', pos: e.pos, object, name: e.name, args, type: sig.ret };
      }
      let method: FunDecl | undefined;
      if (t.kind === 'class') {
        method = t.cls.vtable.find((m) => m.name === e.name);
        if (!method) bag.error(e.pos, msg.noMethod(`class '${t.cls.name}'`, e.name));
      } else if (!isErr(t)) {
        bag.error(e.pos, msg.noMethod(typeName(t), e.name));
      }
      const args = checkArgs(env, cx, e.name, method && paramTypes(method), e.args, e.pos);
      return { ...e, object, args, method, type: method ? method.returnType : ERR };
    }

    case 'superInvoke': {
      const sup = cx.cls?.superclass;
      if (!cx.cls || !cx.fun) {
        bag.error(e.pos, msg.superOutsideMethod());
        return { ...e, args: checkArgs(env, cx, e.name, undefined, e.args, e.pos), type: ERR };
      }
      if (e.name === 'init') {
        if (cx.fun.name !== 'init' || cx.fun.owner !== cx.cls) {
          bag.error(e.pos, msg.superInitOutsideInit());
          return { ...e, args: checkArgs(env, cx, e.name, undefined, e.args, e.pos), type: ERR };
        }
        // With no constructor anywhere above, `super.init()` is an empty call.
        const ctor = sup?.ctor;
        const args = checkArgs(env, cx, 'super.init', ctor ? paramTypes(ctor) : [], e.args, e.pos);
        return { ...e, args, method: ctor, type: VOID };
      }
      const method = sup?.vtable.find((m) => m.name === e.name);
      if (!method) bag.error(e.pos, msg.superNoMethod(sup?.name ?? 'Object', e.name));
      const args = checkArgs(env, cx, e.name, method && paramTypes(method), e.args, e.pos);
      return { ...e, args, method, type: method ? method.returnType : ERR };
    }

    case 'new': {
      const cls = e.className === 'Object' ? env.objectClass : env.classes.get(e.className);
      if (!cls) {
        const primitive = ['int', 'float', 'bool', 'string', 'void'].includes(e.className);
        bag.error(e.pos, primitive ? msg.notAClass(e.className) : msg.unknownClass(e.className));
      }
      const params = cls ? (cls.ctor ? paramTypes(cls.ctor) : []) : undefined;
      const args = checkArgs(env, cx, cls ? cls.name : e.className, params, e.args, e.pos);
      if (!cls) return { ...e, args, type: ERR };
      return { ...e, args, cls, type: { kind: 'class', cls } };
    }

    case 'newArray': {
      const elem = env.resolveType(e.elemRef);
      const length = checkValue(env, cx, e.length);
      if (!isErr(length.type) && length.type.kind !== 'int') bag.error(startPos(length), msg.lengthNotInt(typeName(length.type)));
      return { ...e, length, type: isErr(elem) ? ERR : { kind: 'array', elem } };
    }

    case 'is':
    case 'as': {
      const operand = checkValue(env, cx, e.operand);
      const target = env.resolveType(e.targetRef);
      if (!isErr(operand.type) && !isRefType(operand.type)) bag.error(startPos(operand), msg.castOperand(e.kind, typeName(operand.type)));
      if (!isErr(target) && !isCastTarget(target)) bag.error(e.targetRef.pos, msg.castTarget(e.kind, typeName(target)));
      return { ...e, operand, target, type: e.kind === 'is' ? BOOL : target };
    }

    case 'length':
    case 'stringMethod':
      return e; // produced by this checker only, already checked
  }
}

function checkBinary(env: Env, cx: FnCtx, e: Expr & { kind: 'binary' }): Expr {
  const left = checkValue(env, cx, e.left);
  const right = checkValue(env, cx, e.right);
  const l = left.type;
  const r = right.type;
  const anyErr = isErr(l) || isErr(r);
  const fail = (expected: string, result: Type): Expr => {
    if (!anyErr) env.bag.error(e.pos, msg.binaryOperands(e.op, expected, typeName(l), typeName(r)));
    return { ...e, left, right, type: result };
  };
  const ok = (type: Type): Expr => ({ ...e, left, right, type });
  const numeric = isNumeric(l) && isNumeric(r);
  const widened = l.kind === 'float' || r.kind === 'float' ? FLOAT : INT;

  switch (e.op) {
    case '||':
    case '&&':
      return l.kind === 'bool' && r.kind === 'bool' ? ok(BOOL) : fail('bool operands', BOOL);
    case '==':
    case '!=':
      if (!isComparable(l, r)) env.bag.error(e.pos, msg.cannotCompare(typeName(l), typeName(r)));
      return ok(BOOL);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return numeric ? ok(BOOL) : fail('numbers', BOOL);
    case '|':
    case '^':
    case '&':
    case '<<':
    case '>>':
    case '>>>':
      return l.kind === 'int' && r.kind === 'int' ? ok(INT) : fail('int operands', INT);
    case '+':
      // Concatenation: either side a string, the other any value (converted as print would).
      if (l.kind === 'string' || r.kind === 'string') return ok(STRING);
      return numeric ? ok(widened) : fail('numbers or a string', ERR);
    case '-':
    case '*':
    case '/':
    case '%':
      return numeric ? ok(widened) : fail('numbers', ERR);
  }
}
