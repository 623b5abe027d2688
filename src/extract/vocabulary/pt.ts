// Owns the Portuguese words of extraction's vocabulary, one list per role (see types.ts).
import type { Vocabulary } from './types.js';

/** Portuguese (pt). */
export const pt: Vocabulary = {
  verify: [
    'verificar', 'verifica', 'verifique', 'confirmar', 'confirma', 'confirme', 'ativar', 'ative', 'validar',
    'concluir cadastro',
  ],
  reset: ['redefinir', 'nova senha', 'recuperar'],
  login: ['entrar', 'fazer login'],
  weakAction: ['continuar', 'aqui'],
  negativeAction: ['cancelar'],
  unsubscribe: ['cancelar inscrição', 'descadastrar', 'descadastre-se'],
  preferences: ['preferências'],
  privacy: ['privacidade'],
  terms: ['termos'],
  help: ['ajuda', 'suporte', 'fale conosco'],
  viewInBrowser: ['ver no navegador', 'visualizar no navegador', 'versão online'],
  social: ['siga-nos'],
  code: ['código', 'códigos', 'código de verificação', 'código de segurança'],
  fakeCode: ['código promocional', 'código postal', 'código de rastreamento', 'cupom'],
  enter: ['insira', 'digite'],
  bookingCode: ['código de reserva'],
  booking: ['reserva', 'voo'],
  nonCodeLabel: [
    'pedido', 'número', 'reserva', 'cliente', 'encomenda', 'fatura', 'nota fiscal', 'telefone', 'conta', 'valor',
    'preço', 'rastreamento',
  ],
  address: ['rua', 'avenida'],
  unitAfter: ['minutos', 'horas', 'segundos', 'dias'],
  months: [
    'janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro',
  ],
  confirmationNoun: ['confirmação'],
  account: ['conta'],
  copula: ['é', 'era'],
  disclaimer: [
    'ignore', 'ignorar', 'desconsidere',
  ],
  pointer: [
    'link abaixo', 'seguinte link', 'botão abaixo',
  ],
  advice: ['recomendamos'],
};
